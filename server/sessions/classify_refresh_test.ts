import assert from "node:assert/strict";
import type { RefreshRecord, SessionFamily } from "../store/sessions.ts";
import { type ClassifyInput, classifyRefresh } from "./classify_refresh.ts";

const NOW = 1_700_000_000_000;
const family: SessionFamily = {
  id: "ses_1",
  user_id: "usr_1",
  created_at: NOW - 3_600_000,
  expires_at: NOW + 86_400_000,
  revoked: false,
};
const live: RefreshRecord = {
  hash: "h1",
  family_id: "ses_1",
  user_id: "usr_1",
  issued_at: NOW - 60_000,
  expires_at: family.expires_at,
};
const retired = (agoMs: number): RefreshRecord => ({
  ...live,
  retired_at: NOW - agoMs,
  successor: { hash: "h2", sealed: "x" },
});

function input(over: Partial<ClassifyInput> & { successorLive?: boolean }): ClassifyInput {
  const { successorLive, ...rest } = over;
  return {
    snapshot: { record: live, family, successorLive },
    now: NOW,
    graceMs: 10_000,
    sawLive: false,
    ...rest,
  };
}
const snap = (record: RefreshRecord, f: SessionFamily | undefined, successorLive?: boolean) => ({
  snapshot: { record, family: f, successorLive },
});

const cases: [string, ClassifyInput, string][] = [
  ["no record → unknown", input({ snapshot: undefined }), "unknown"],
  ["record without family (swept) → unknown", input(snap(live, undefined)), "unknown"],
  ["current token → live", input({}), "live"],
  [
    "revoked family → revoked, even for the live token",
    input(snap(live, { ...family, revoked: true })),
    "revoked",
  ],
  [
    "revoked family → revoked, not reuse, for a retired token",
    input(snap(retired(60_000), { ...family, revoked: true }, true)),
    "revoked",
  ],
  [
    "family past its absolute end → expired",
    input(snap(live, { ...family, expires_at: NOW })),
    "expired",
  ],
  [
    "token past its expiry → expired",
    input(snap({ ...live, expires_at: NOW - 1 }, family)),
    "expired",
  ],
  ["retired 1 s ago, successor live → retry", input(snap(retired(1_000), family, true)), "retry"],
  [
    "retired exactly at the grace edge → retry",
    input(snap(retired(10_000), family, true)),
    "retry",
  ],
  [
    "retired 1 ms past the grace window → reuse",
    input(snap(retired(10_001), family, true)),
    "reuse:outside_grace",
  ],
  [
    "inside grace but the successor was rotated too → reuse (older than the predecessor)",
    input(snap(retired(1_000), family, false)),
    "reuse:superseded",
  ],
  [
    "grace 0 still lets a race loser retry",
    { ...input(snap(retired(5), family, true)), graceMs: 0, sawLive: true },
    "retry",
  ],
  [
    "grace 0 and not a race loser → reuse",
    { ...input(snap(retired(5), family, true)), graceMs: 0 },
    "reuse:outside_grace",
  ],
  [
    "race loser whose successor already moved on → stale, no alarm",
    { ...input(snap(retired(5), family, false)), sawLive: true },
    "stale",
  ],
];

for (const [name, given, want] of cases) {
  Deno.test(`classifyRefresh(): ${name}`, () => {
    const got = classifyRefresh(given);
    assert.equal(got.kind === "reuse" ? `reuse:${got.reason}` : got.kind, want);
  });
}
