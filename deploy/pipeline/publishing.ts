/**
 * What every command that publishes to a live prefix shares (`deploy`, `rollback`, a preview
 * deploy; `delete`, `destroy` and `preview destroy` take the lock too): it holds the scope's
 * deploy lock while it publishes, and it invalidates its changes
 * together with whatever an earlier run still owed, recording them first so a refused or
 * interrupted invalidation is made good by the next run.
 *
 * @module
 */
import type { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import type { S3Client } from "@aws-sdk/client-s3";
import { type Clock, type Logger, sleep, systemClock } from "@org/shared";
import type { RetryOptions } from "../aws/retry.ts";
import { clearOwed, recordOwed } from "../cdn/owed_invalidation.ts";
import { INVALIDATE_ALL, planInvalidation } from "../cdn/plan_invalidation.ts";
import { createInvalidation, type InvalidationResult } from "../cdn/send_invalidation.ts";
import type { Builder } from "../builders/builder.ts";
import type { FlagSpec } from "../command.ts";
import { acquireLock, type HeldLock } from "../state/deploy_lock.ts";

/** The lock a publishing run holds. */
export interface DeployLockInput {
  /** The lock object's key (`lockKey(env)`; a preview passes its own scope). */
  readonly key: string;
  /** Who is deploying, for the refusal another deploy prints. */
  readonly holder: string;
  /** How long to wait for another holder (milliseconds). */
  readonly waitMs: number;
  /** `--force-unlock`: remove an existing lock first. */
  readonly forceUnlock?: boolean;
  /** The command line re-running this one with `--force-unlock` (for the refusal's hint). */
  readonly rerun?: string;
}

/**
 * `--force-unlock`, the one spelling every command that takes the deploy lock accepts (the
 * refusal's hint names it).
 */
export const FORCE_UNLOCK_FLAG: FlagSpec = {
  type: "boolean",
  description: "first remove a deploy lock whose holder is gone (killed); operators only",
};

/**
 * Beyond the builder's deadline, how long a lock lasts: the local builder's sync after its
 * build, and the invalidation. A run without a build (`delete`, `preview destroy`) holds it
 * this long.
 */
export const LOCK_SLACK_MS = 10 * 60_000;

/** Where a run publishes and how it invalidates (a `DeployInput` is one). */
export interface PublishingTarget {
  /** The site bucket (lock and owed record live there). */
  readonly bucket: string;
  /** The distribution to invalidate; none (a preview, whose distribution does not cache): nothing is. */
  readonly distributionId?: string;
  /** Config `invalidationMaxPaths`. */
  readonly invalidationMaxPaths: number;
  /** Config `defaultRootObject`. */
  readonly defaultRootObject?: string;
  /** Config `microvm.maxDurationSeconds`: the lock outlasts the longest build. */
  readonly maxDurationSeconds: number;
  /** The builder whose job the lock covers (its deadline); none: the run builds nothing. */
  readonly builder?: Pick<Builder, "deadlineMs">;
  /** S3 (lock, owed record) and CloudFront. */
  readonly clients: { readonly s3: S3Client; readonly cloudfront: CloudFrontClient };
  /** Warnings (a lock taken over). */
  readonly logger: Logger;
  /** The lock; none: no lock. */
  readonly lock?: DeployLockInput;
  /** Where owed paths are recorded (`owedInvalidationKey(scope)`); none: not kept. */
  readonly owedKey?: string;
  /** Time source. Default: the system clock. */
  readonly clock?: Clock;
  /** Waits while another run holds the lock. Default: a real timer. */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Backoff for the CloudFront call. */
  readonly retry?: RetryOptions;
}

/**
 * Takes the target's deploy lock (waiting up to its bound), or nothing when it has none.
 *
 * @param target bucket, clients, lock and timing
 * @returns the held lock (`await using` releases it) or undefined
 * @throws DeployError `deploy_locked` naming the holder
 */
export async function takePublishingLock(
  target: Pick<
    PublishingTarget,
    | "bucket"
    | "clients"
    | "logger"
    | "lock"
    | "maxDurationSeconds"
    | "builder"
    | "clock"
    | "sleep"
    | "retry"
  >,
): Promise<HeldLock | undefined> {
  if (target.lock === undefined) return undefined;
  return await acquireLock({
    key: target.lock.key,
    holder: target.lock.holder,
    waitMs: target.lock.waitMs,
    ttlMs: lockTtlMs(target),
    ...(target.lock.forceUnlock ? { forceUnlock: true } : {}),
    ...(target.lock.rerun ? { rerun: target.lock.rerun } : {}),
  }, {
    s3: target.clients.s3,
    bucket: target.bucket,
    clock: target.clock ?? systemClock,
    sleep: target.sleep ?? sleep,
    logger: target.logger,
    ...(target.retry ? { retry: target.retry } : {}),
  });
}

/**
 * How long a run's lock lasts if never released (pure): the builder's own deadline, when the
 * run builds, plus {@linkcode LOCK_SLACK_MS}.
 *
 * @param target the builder (none: no build) and `maxDurationSeconds`
 * @returns milliseconds
 */
export function lockTtlMs(
  target: Pick<PublishingTarget, "builder" | "maxDurationSeconds">,
): number {
  return (target.builder?.deadlineMs(target.maxDurationSeconds) ?? 0) + LOCK_SLACK_MS;
}

/**
 * Records `changedKeys` as owed, invalidates everything owed (capped at
 * `invalidationMaxPaths`, `/*` past it) and clears the record once CloudFront accepted.
 *
 * @param target distribution, limits, clients and the owed record's key
 * @param changedKeys the keys this run changed
 * @param buildId names the build, for the caller reference
 * @param changeDigest the sync's change digest
 * @returns what was sent, or undefined when nothing was owed
 */
export async function invalidateOwed(
  target: PublishingTarget,
  changedKeys: readonly string[],
  buildId: string,
  changeDigest = "",
): Promise<InvalidationResult | undefined> {
  if (target.distributionId === undefined) return undefined;
  const owedAt = target.owedKey === undefined
    ? undefined
    : { s3: target.clients.s3, bucket: target.bucket, key: target.owedKey };
  const owed = owedAt ? await recordOwed(owedAt, changedKeys) : { keys: changedKeys, all: false };
  const paths = owed.all
    ? [INVALIDATE_ALL]
    : planInvalidation(owed.keys, target.invalidationMaxPaths, target.defaultRootObject);
  const sent = await createInvalidation(
    target.clients.cloudfront,
    target.distributionId,
    paths,
    buildId,
    target.retry,
    changeDigest,
  );
  if (owedAt && (owed.all || owed.keys.length > 0)) await clearOwed(owedAt);
  return sent;
}
