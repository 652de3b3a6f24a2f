/**
 * Sends a deploy's invalidation to CloudFront.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { type CloudFrontClient, CreateInvalidationCommand } from "@aws-sdk/client-cloudfront";
import { type RetryOptions, withRetry } from "../sync/retry.ts";

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
 * The caller reference for a build's invalidation: the build id plus a hash of the paths.
 *
 * CloudFront treats a repeated caller reference as the same request (so a retried deploy of
 * the same build does not invalidate twice) but rejects one reused with different paths; the
 * hash keeps two different path sets from one build (a dirty tree redeployed) apart.
 *
 * @param buildId the build's id, e.g. `3f2a1b9c8d7e-dirty`
 * @param paths the paths to invalidate
 * @returns at most 128 characters
 */
export function invalidationCallerReference(buildId: string, paths: readonly string[]): string {
  const digest = createHash("sha256").update(paths.join("\n")).digest("hex").slice(0, 16);
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
 * @returns what was sent, or undefined when nothing was
 *
 * @example
 * ```ts
 * await createInvalidation(cf, "E123", planInvalidation(result.changedKeys, 1000), buildId);
 * ```
 */
export async function createInvalidation(
  cloudfront: CloudFrontClient,
  distributionId: string,
  paths: readonly string[],
  buildId: string,
  retry: RetryOptions = {},
): Promise<InvalidationResult | undefined> {
  if (paths.length === 0) return undefined;
  const callerReference = invalidationCallerReference(buildId, paths);
  const out = await withRetry(
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
  );
  return { id: out.Invalidation?.Id ?? "", paths, callerReference };
}
