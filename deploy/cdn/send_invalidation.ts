/**
 * Sends a deploy's invalidation to CloudFront.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { type CloudFrontClient, CreateInvalidationCommand } from "@aws-sdk/client-cloudfront";
import { type RetryOptions, withRetry } from "../aws/retry.ts";
import { aws } from "../aws/errors.ts";

/** What {@linkcode createInvalidation} sent. */
export interface InvalidationResult {
  /** CloudFront's invalidation id. */
  readonly id: string;
  /** The paths invalidated. */
  readonly paths: readonly string[];
  /** The caller reference sent. */
  readonly callerReference: string;
}

/**
 * The caller reference for a build's invalidation: the build id plus a hash of the paths and
 * of the sync's changes.
 *
 * CloudFront treats a repeated caller reference as the same request and creates nothing new.
 * Hashing the paths alone would make a second deploy of a dirty tree with a new edit to the
 * same file (same build id, same paths) a no-op, leaving the edge serving the old content;
 * hashing the change digest (old and new MD5 of every key, see `sync/change_digest.ts`) makes
 * only a true retry of the same change repeat the reference.
 *
 * @param buildId the build's id, e.g. `3f2a1b9c8d7e-dirty`
 * @param paths the paths to invalidate
 * @param changeDigest the sync's change digest (empty when unknown: paths only)
 * @returns at most 128 characters
 */
export function invalidationCallerReference(
  buildId: string,
  paths: readonly string[],
  changeDigest = "",
): string {
  const digest = createHash("sha256").update(paths.join("\n")).update(`\n\n${changeDigest}`)
    .digest("hex").slice(0, 16);
  return `${buildId.slice(0, 100)}-${digest}`;
}

/**
 * Creates one CloudFront invalidation for `paths`; sends nothing when `paths` is empty (an
 * identical redeploy makes no invalidation request at all).
 *
 * @param cloudfront the CloudFront client
 * @param distributionId the distribution
 * @param paths from `planInvalidation`
 * @param buildId names the build, for the caller reference
 * @param retry backoff on throttling and 5xx
 * @param changeDigest the sync's change digest, so a new change of the same paths is a new request
 * @returns what was sent, or undefined when nothing was
 *
 * @example
 * ```ts
 * import type { CloudFrontClient } from "@aws-sdk/client-cloudfront";
 * import type { SyncResult } from "../sync/engine.ts";
 * import { planInvalidation } from "./plan_invalidation.ts";
 *
 * const invalidate = (cf: CloudFrontClient, result: SyncResult, buildId: string) =>
 *   createInvalidation(cf, "E123", planInvalidation(result.changedKeys, 1000), buildId);
 * ```
 */
export async function createInvalidation(
  cloudfront: CloudFrontClient,
  distributionId: string,
  paths: readonly string[],
  buildId: string,
  retry: RetryOptions = {},
  changeDigest = "",
): Promise<InvalidationResult | undefined> {
  if (paths.length === 0) return undefined;
  const callerReference = invalidationCallerReference(buildId, paths, changeDigest);
  const out = await aws(
    { resource: `distribution ${distributionId}`, action: "cloudfront:CreateInvalidation" },
    () =>
      withRetry(
        () =>
          cloudfront.send(
            new CreateInvalidationCommand({
              DistributionId: distributionId,
              InvalidationBatch: {
                CallerReference: callerReference,
                Paths: { Quantity: paths.length, Items: [...paths] },
              },
            }),
          ),
        retry,
      ),
  );
  return { id: out.Invalidation?.Id ?? "", paths, callerReference };
}
