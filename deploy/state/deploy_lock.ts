/**
 * The per-scope deploy lock: `locks/<scope>.json` in the site bucket, taken with an S3
 * conditional write (`If-None-Match: *`: the PUT succeeds only when no lock exists), naming its
 * holder and an expiry. Two deploys of one environment never interleave their uploads: the
 * second waits a bounded time, then refuses, naming the holder. A lock past its expiry (its
 * holder died) is taken over with `If-Match` on the lock's ETag, so two deploys that both see
 * it expired cannot both take it.
 *
 * S3 faults do not wedge it. Every call is retried like every other S3 write. A write whose
 * answer was lost (a 503 after the object was stored) is told apart from another holder's by
 * reading the lock back: a lock carrying this acquisition's token is ours. Release deletes the
 * lock only while it still has the ETag written (a conditional delete), so a holder that
 * outlived its lock never removes its successor's.
 *
 * @module
 */
import type { S3Client } from "@aws-sdk/client-s3";
import type { Clock, Logger } from "@org/shared";
import { DeployError } from "../errors.ts";
import type { RetryOptions } from "../aws/retry.ts";
import { getObjectText, type PutCondition, putJsonIf, removeObject } from "../aws/s3_objects.ts";

/** What the lock object says. */
export interface LockRecord {
  /** Format version. */
  readonly version: 1;
  /** Who holds it, for the refusal message (`deploy production from host, pid 4242`). */
  readonly holder: string;
  /** Random per acquisition: whose the lock is, when an answer was lost. */
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
  /**
   * The command line that re-runs this command with `--force-unlock`, which the refusal's
   * hint names; without one the hint says "run again with --force-unlock".
   */
  readonly rerun?: string;
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
  /** Backoff for each S3 call (default: {@linkcode withRetry}'s, waiting with `sleep`). */
  readonly retry?: RetryOptions;
}

/** A held lock; releasing it twice is harmless. */
export interface HeldLock extends AsyncDisposable {
  /** The record written. */
  readonly record: LockRecord;
  /** The ETag S3 gave the record written: release is conditional on it. */
  readonly etag: string;
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
  const retry: RetryOptions = { sleep: deps.sleep, ...deps.retry };
  if (spec.forceUnlock) {
    const current = await readLock(deps, spec.key, retry);
    if (current) {
      deps.logger.warn(`--force-unlock: removing the lock held by ${describe(current.record)}`);
      await removeObject(deps, spec.key, current.etag, retry);
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
    const created = await writeLock(deps, spec.key, record, { IfNoneMatch: "*" }, retry);
    if ("etag" in created) return held(deps, spec.key, record, created.etag, retry);
    const current = created.current;
    if (current === undefined) continue; // released between the two calls: try again
    if (lockExpired(current.record, now)) {
      const taken = await writeLock(deps, spec.key, record, { IfMatch: current.etag }, retry);
      if ("etag" in taken) {
        deps.logger.warn(`took over an expired deploy lock held by ${describe(current.record)}`);
        return held(deps, spec.key, record, taken.etag, retry);
      }
      continue; // another deploy took it over first
    }
    if (waited >= spec.waitMs) {
      throw new DeployError(
        "deploy_locked",
        `another deploy holds ${where}: ${describe(current.record!)}`,
        {
          hint: "wait for it to finish and run the command again; if its holder is gone " +
            `(killed), run ${spec.rerun ? `\`${spec.rerun}\`` : "again with --force-unlock"}`,
        },
      );
    }
    const delay = Math.min(deps.pollMs ?? 2_000, spec.waitMs - waited);
    await deps.sleep(delay);
    waited += delay;
  }
}

/** A lock as read: its record (undefined when unreadable) and ETag. */
interface ReadLock {
  readonly record: LockRecord | undefined;
  readonly etag: string;
}

/**
 * One conditional write of the lock, retried. A refusal or a failure is ambiguous when an
 * earlier attempt of this same write may have taken effect with its answer lost: the lock read
 * back settles it (this record's token: ours). Otherwise it answers the lock that is there;
 * a failure with no lock there is S3's, and is thrown.
 */
async function writeLock(
  deps: LockDeps,
  key: string,
  record: LockRecord,
  condition: PutCondition,
  retry: RetryOptions,
): Promise<{ etag: string } | { current: ReadLock | undefined }> {
  let failure: { err: unknown } | undefined;
  try {
    const etag = await putJsonIf(deps, key, record, condition, retry);
    if (etag !== undefined) return { etag };
  } catch (err) {
    failure = { err };
  }
  let current: ReadLock | undefined;
  try {
    current = await readLock(deps, key, retry);
  } catch (err) {
    throw failure ? failure.err : err;
  }
  if (current?.record?.token === record.token) return { etag: current.etag };
  if (failure && current === undefined) throw failure.err;
  return { current };
}

function describe(record: LockRecord | undefined): string {
  return record === undefined
    ? "an unreadable lock"
    : `${record.holder}, since ${record.acquiredAt}, until ${record.expiresAt}`;
}

function held(
  deps: LockDeps,
  key: string,
  record: LockRecord,
  etag: string,
  retry: RetryOptions,
): HeldLock {
  let released = false;
  const release = async () => {
    if (released) return;
    released = true;
    try {
      // 412 (someone took it over after it lapsed) leaves their lock in place.
      await removeObject(deps, key, etag, retry);
    } catch (err) {
      // The lock lapses at its expiry anyway; a failed release must not fail the deploy.
      deps.logger.warn(`the deploy lock could not be released: ${String(err)}`);
    }
  };
  return { record, etag, release, [Symbol.asyncDispose]: release };
}

async function readLock(
  deps: LockDeps,
  key: string,
  retry: RetryOptions,
): Promise<ReadLock | undefined> {
  const current = await getObjectText(deps, key, retry);
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
