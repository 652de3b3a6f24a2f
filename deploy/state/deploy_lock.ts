/**
 * The per-scope deploy lock: `locks/<scope>.json` in the site bucket, taken with an S3
 * conditional write (`If-None-Match: *`: the PUT succeeds only when no lock exists), naming its
 * holder and an expiry. Two deploys of one environment never interleave their uploads: the
 * second waits a bounded time, then refuses, naming the holder. A lock past its expiry (its
 * holder died) is taken over with `If-Match` on the lock's ETag, so two deploys that both see
 * it expired cannot both take it.
 *
 * @module
 */
import type { S3Client } from "@aws-sdk/client-s3";
import type { Clock, Logger } from "@org/shared";
import { DeployError } from "../errors.ts";
import { getObjectText, putJsonIf, removeObject } from "../aws/s3_objects.ts";

/** What the lock object says. */
export interface LockRecord {
  /** Format version. */
  readonly version: 1;
  /** Who holds it, for the refusal message (`deploy production from host, pid 4242`). */
  readonly holder: string;
  /** Random per acquisition: release deletes only the lock it took. */
  readonly token: string;
  /** When it was taken (ISO 8601). */
  readonly acquiredAt: string;
  /** When it lapses if never released (ISO 8601). */
  readonly expiresAt: string;
}

/** Which lock, held by whom, for how long, and how long to wait for it. */
export interface LockSpec {
  /** The lock object's key (`lockKey(scope)`). */
  readonly key: string;
  /** Names the holder in the lock, for whoever waits on it. */
  readonly holder: string;
  /** How long the lock lasts if never released (milliseconds). */
  readonly ttlMs: number;
  /** How long to wait for another holder before refusing (milliseconds; 0: refuse at once). */
  readonly waitMs: number;
  /** `--force-unlock`: remove whatever lock exists first (an operator's decision). */
  readonly forceUnlock?: boolean;
}

/** What acquiring needs besides the spec. */
export interface LockDeps {
  /** S3 client for the bucket. */
  readonly s3: S3Client;
  /** The site bucket. */
  readonly bucket: string;
  /** Time source for expiry. */
  readonly clock: Clock;
  /** Waits between attempts. */
  readonly sleep: (ms: number) => Promise<void>;
  /** Warnings (a lock taken over or forced). */
  readonly logger: Logger;
  /** Milliseconds between attempts while waiting. Default 2,000. */
  readonly pollMs?: number;
}

/** A held lock; releasing it twice is harmless. */
export interface HeldLock extends AsyncDisposable {
  /** The record written. */
  readonly record: LockRecord;
  /** Deletes the lock if it is still this one. */
  release(): Promise<void>;
}

/**
 * Whether a lock has lapsed (pure): its expiry reached, or unreadable (a torn or foreign
 * object must not block deploys forever).
 *
 * @param record the lock's parsed content, or undefined when it cannot be read
 * @param nowMs clock reading
 * @returns true when it may be taken over
 */
export function lockExpired(record: LockRecord | undefined, nowMs: number): boolean {
  if (record === undefined) return true;
  const expires = Date.parse(record.expiresAt);
  return !Number.isFinite(expires) || nowMs >= expires;
}

/**
 * Takes the lock: a conditional create; if another holds it, takes it over once expired, else
 * waits (polling) up to `waitMs` and then refuses.
 *
 * @param spec key, holder, expiry, wait and `forceUnlock`
 * @param deps S3, bucket, clock, sleep and logger
 * @returns the held lock
 * @throws DeployError `deploy_locked` naming the holder and its expiry; an AWS failure
 *
 * @example
 * ```ts
 * import { lockKey } from "./bucket_layout.ts";
 * import type { LockDeps, LockSpec } from "./deploy_lock.ts";
 *
 * async function whileLocked(holder: LockSpec["holder"], ttlMs: number, deps: LockDeps) {
 *   await using lock = await acquireLock(
 *     { key: lockKey("production"), holder, ttlMs, waitMs: 60_000 },
 *     deps,
 *   );
 *   // … deploy while `lock` is held; leaving the block releases it
 * }
 * ```
 */
export async function acquireLock(spec: LockSpec, deps: LockDeps): Promise<HeldLock> {
  const where = `s3://${deps.bucket}/${spec.key}`;
  if (spec.forceUnlock) {
    const current = await readLock(deps, spec.key);
    if (current) {
      deps.logger.warn(`--force-unlock: removing the lock held by ${describe(current.record)}`);
      await removeObject(deps, spec.key);
    }
  }
  // The wait is counted in the sleeps asked for, so an injected sleep bounds it too.
  let waited = 0;
  while (true) {
    const now = deps.clock.now();
    const record: LockRecord = {
      version: 1,
      holder: spec.holder,
      token: crypto.randomUUID(),
      acquiredAt: new Date(now).toISOString(),
      expiresAt: new Date(now + spec.ttlMs).toISOString(),
    };
    if (await putJsonIf(deps, spec.key, record, { IfNoneMatch: "*" })) {
      return held(deps, spec.key, record);
    }
    const current = await readLock(deps, spec.key);
    if (current === undefined) continue; // released between the two calls: try again
    if (lockExpired(current.record, now)) {
      if (await putJsonIf(deps, spec.key, record, { IfMatch: current.etag })) {
        deps.logger.warn(`took over an expired deploy lock held by ${describe(current.record)}`);
        return held(deps, spec.key, record);
      }
      continue; // another deploy took it over first
    }
    if (waited >= spec.waitMs) {
      throw new DeployError(
        "deploy_locked",
        `another deploy holds ${where}: ${describe(current.record!)}`,
        {
          hint: "wait for it to finish and run the command again; if its holder is gone, " +
            "run again with --force-unlock",
        },
      );
    }
    const delay = Math.min(deps.pollMs ?? 2_000, spec.waitMs - waited);
    await deps.sleep(delay);
    waited += delay;
  }
}

function describe(record: LockRecord | undefined): string {
  return record === undefined
    ? "an unreadable lock"
    : `${record.holder}, since ${record.acquiredAt}, until ${record.expiresAt}`;
}

function held(deps: LockDeps, key: string, record: LockRecord): HeldLock {
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    try {
      const current = await readLock(deps, key);
      if (current?.record?.token === record.token) await removeObject(deps, key);
    } catch (err) {
      // The lock lapses at its expiry anyway; a failed release must not fail the deploy.
      deps.logger.warn(`the deploy lock could not be released: ${String(err)}`);
    }
  };
  return { record, release, [Symbol.asyncDispose]: release };
}

async function readLock(
  deps: LockDeps,
  key: string,
): Promise<{ record: LockRecord | undefined; etag: string } | undefined> {
  const current = await getObjectText(deps, key);
  return current && { record: parseLock(current.text), etag: current.etag };
}

function parseLock(text: string): LockRecord | undefined {
  try {
    const v = JSON.parse(text) as Partial<LockRecord> | null;
    return v && typeof v.holder === "string" && typeof v.expiresAt === "string" &&
        typeof v.token === "string"
      ? v as LockRecord
      : undefined;
  } catch {
    return undefined;
  }
}
