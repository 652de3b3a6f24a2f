import assert from "node:assert/strict";
import { lockExpired, type LockRecord } from "./deploy_lock.ts";

const record = (expiresAt: string): LockRecord => ({
  version: 1,
  holder: "deploy production (pid 1)",
  token: "t",
  acquiredAt: "2026-01-01T00:00:00.000Z",
  expiresAt,
});

Deno.test("lockExpired(): a lock lapses at its expiry, not a millisecond before", () => {
  const at = Date.parse("2026-01-01T01:00:00.000Z");
  assert.equal(lockExpired(record("2026-01-01T01:00:00.000Z"), at - 1), false);
  assert.equal(lockExpired(record("2026-01-01T01:00:00.000Z"), at), true);
});

Deno.test("lockExpired(): an unreadable lock or expiry never blocks deploys forever", () => {
  assert.equal(lockExpired(undefined, 0), true);
  assert.equal(lockExpired(record("tomorrow"), 0), true);
});
