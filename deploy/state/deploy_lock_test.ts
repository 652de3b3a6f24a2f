import assert from "node:assert/strict";
import { S3Client } from "@aws-sdk/client-s3";
import { silentLogger } from "@org/shared";
import { startS3, testAwsConfig } from "../../tests/support/s3.ts";
import { getObjectText } from "../aws/s3_objects.ts";
import { DeployError } from "../errors.ts";
import { LOCK_SLACK_MS, lockTtlMs } from "../pipeline/publishing.ts";
import { acquireLock, type LockDeps, lockExpired, type LockRecord } from "./deploy_lock.ts";

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

/** A 503 `SlowDown` as the SDK throws it. */
function slowDown(): Error {
  return Object.assign(new Error("Please reduce your request rate."), {
    name: "SlowDown",
    $metadata: { httpStatusCode: 503 },
  });
}

/**
 * An S3 client on s3rver whose calls to the lock key fail as `faults` says: `before` throws
 * `SlowDown` without sending; `after` sends (the write takes effect) and then throws it (the
 * answer lost on the way). The SDK's own retries are off, so only the lock's retries count.
 */
async function faultyBucket() {
  const s3rver = await startS3(["site"]);
  const s3 = new S3Client({
    ...testAwsConfig,
    endpoint: s3rver.endpoint,
    forcePathStyle: true,
    maxAttempts: 1,
  });
  const faults: { command: string; when: "before" | "after" }[] = [];
  const sent: string[] = [];
  s3.middlewareStack.add(
    (next, context) => async (args) => {
      const command = context.commandName ?? "";
      sent.push(command);
      const i = faults.findIndex((f) => f.command === command);
      const fault = i >= 0 ? faults.splice(i, 1)[0] : undefined;
      if (fault?.when === "before") throw slowDown();
      const out = await next(args);
      if (fault?.when === "after") throw slowDown();
      return out;
    },
    { step: "initialize", name: "injectFaults" },
  );
  const logged: string[] = [];
  const deps: LockDeps = {
    s3,
    bucket: "site",
    clock: { now: () => Date.parse("2026-01-01T00:00:00.000Z") },
    sleep: () => Promise.resolve(),
    logger: { ...silentLogger, warn: (message: string) => logged.push(message) },
    retry: { baseDelayMs: 1 },
  };
  return {
    s3,
    deps,
    faults,
    sent,
    logged,
    read: async () => (await getObjectText({ s3, bucket: "site" }, "locks/production.json")),
    [Symbol.asyncDispose]: async () => {
      s3.destroy();
      await s3rver.close();
    },
  };
}

const spec = { key: "locks/production.json", holder: "deploy production (pid 1)", ttlMs: 60_000 };

Deno.test("acquireLock(): a SlowDown before the write is retried and the lock taken", async () => {
  await using t = await faultyBucket();
  t.faults.push({ command: "PutObjectCommand", when: "before" });
  const lock = await acquireLock({ ...spec, waitMs: 0 }, t.deps);
  const stored = await t.read();
  assert.equal(JSON.parse(stored!.text).token, lock.record.token);
  assert.equal(lock.etag, stored!.etag);
  await lock.release();
  assert.equal(await t.read(), undefined);
});

Deno.test("acquireLock(): a lost answer (stored, then 503) is resolved by reading the lock back", async () => {
  await using t = await faultyBucket();
  // The write takes effect, its answer is lost; the retry then finds the lock (412).
  t.faults.push({ command: "PutObjectCommand", when: "after" });
  const lock = await acquireLock({ ...spec, waitMs: 0 }, t.deps);
  assert.equal(JSON.parse((await t.read())!.text).token, lock.record.token);
  assert.deepEqual(t.sent.filter((c) => c === "PutObjectCommand").length, 2);
  await lock.release();
  assert.equal(await t.read(), undefined, "released: the next deploy is not refused");
  const next = await acquireLock({ ...spec, waitMs: 0 }, t.deps);
  await next.release();
});

Deno.test("acquireLock(): retries spent after a write that took effect still end holding the lock", async () => {
  await using t = await faultyBucket();
  t.faults.push({ command: "PutObjectCommand", when: "after" });
  for (let i = 0; i < 5; i++) t.faults.push({ command: "PutObjectCommand", when: "before" });
  const lock = await acquireLock({ ...spec, waitMs: 0 }, t.deps);
  assert.equal(t.sent.filter((c) => c === "PutObjectCommand").length, 6);
  assert.equal(JSON.parse((await t.read())!.text).token, lock.record.token);
  await lock.release();
  assert.equal(await t.read(), undefined);
});

Deno.test("acquireLock(): S3 failing throughout fails the deploy and leaves no lock", async () => {
  await using t = await faultyBucket();
  for (let i = 0; i < 12; i++) t.faults.push({ command: "PutObjectCommand", when: "before" });
  await assert.rejects(
    acquireLock({ ...spec, waitMs: 0 }, t.deps),
    (err) => err instanceof DeployError && err.message.includes("locks/production.json"),
  );
  assert.equal(await t.read(), undefined);
});

Deno.test("acquireLock(): another holder's lock still refuses, after a SlowDown", async () => {
  await using t = await faultyBucket();
  const first = await acquireLock({ ...spec, waitMs: 0 }, t.deps);
  t.faults.push({ command: "PutObjectCommand", when: "before" });
  await assert.rejects(
    acquireLock({ ...spec, holder: "deploy production (pid 2)", waitMs: 0 }, t.deps),
    (err) =>
      err instanceof DeployError && err.code === "deploy_locked" &&
      err.message.includes("pid 1"),
  );
  await first.release();
});

Deno.test("release(): a SlowDown on the delete is retried; the lock goes", async () => {
  await using t = await faultyBucket();
  const lock = await acquireLock({ ...spec, waitMs: 0 }, t.deps);
  t.faults.push({ command: "DeleteObjectCommand", when: "before" });
  await lock.release();
  assert.equal(await t.read(), undefined);
  assert.deepEqual(t.logged, []);
});

Deno.test("release(): a lock taken over after it lapsed is left to its new holder", async () => {
  await using t = await faultyBucket();
  const lapsed = await acquireLock({ ...spec, ttlMs: 0, waitMs: 0 }, t.deps);
  const successor = await acquireLock(
    { ...spec, holder: "deploy production (pid 2)", waitMs: 0 },
    t.deps,
  );
  assert.match(t.logged.join("\n"), /took over an expired deploy lock/);
  await lapsed.release();
  assert.equal(JSON.parse((await t.read())!.text).token, successor.record.token);
  await successor.release();
  assert.equal(await t.read(), undefined);
});

Deno.test("lockTtlMs(): the lock lasts the builder's deadline plus the publish, none without a build", () => {
  const builder = { deadlineMs: (s: number) => (s + 60) * 1000 };
  assert.equal(lockTtlMs({ builder, maxDurationSeconds: 600 }), 660_000 + LOCK_SLACK_MS);
  assert.equal(
    lockTtlMs({ builder: { deadlineMs: () => 5_000 }, maxDurationSeconds: 600 }),
    5_000 + LOCK_SLACK_MS,
  );
  assert.equal(lockTtlMs({ maxDurationSeconds: 600 }), LOCK_SLACK_MS);
});
