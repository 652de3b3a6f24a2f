/**
 * The preview distribution, described as data (pure): the production distribution's shape
 * (origin access control to the bucket, HTTPS only, compression, a viewer-request function)
 * with what makes it serve every preview at once:
 *
 * - alias `*.<domain>` with the wildcard certificate, once issued;
 * - no origin path: the router function rewrites the URI to the full key
 *   `/previews/<id>/site/…`;
 * - the router function on viewer requests, so the cache key is the rewritten URI;
 * - AWS's managed cache policy CachingDisabled: a redeployed preview is served on the next
 *   request and a destroyed one stops being served, with no invalidation (the preview role has
 *   no invalidation rights);
 * - no custom error responses (so `spa` has no effect on previews).
 *
 * @module
 */
import type { DistributionConfig } from "@aws-sdk/client-cloudfront";
import { bucketOriginDomain } from "../../infra/nodes/bucket.ts";
import {
  distributionConfig,
  distributionDrift,
  type DistributionSpec,
} from "../../infra/nodes/distribution.ts";
import { previewWildcard } from "../names.ts";

/** AWS managed cache policy "CachingDisabled" (TTL 0: every request reaches the bucket). */
export const CACHING_DISABLED_POLICY_ID = "4135ea2d-6df8-44a3-9df3-4b5a84be39ad";

/** What the preview distribution's description depends on. */
export interface PreviewDistributionInput {
  /** The preview bucket. */
  readonly bucket: string;
  /** The bucket's region. */
  readonly region: string;
  /** The preview base domain. */
  readonly domain: string;
  /** The origin access control's id. */
  readonly oacId: string;
  /** The wildcard certificate's ARN and status. */
  readonly certificate?: { readonly arn: string; readonly status: string };
  /** The published router function's ARN. */
  readonly routerArn: string;
}

/**
 * The preview distribution's spec (pure): the alias and certificate only once issued.
 *
 * @param input bucket, region, domain, OAC, certificate, router
 * @returns the spec the distribution helpers take
 */
export function previewDistributionSpec(input: PreviewDistributionInput): DistributionSpec {
  const issued = input.certificate?.status === "ISSUED";
  return {
    callerReference: `deploy-${input.bucket}`,
    comment: `deploy ${input.bucket}`,
    originDomain: bucketOriginDomain(input.bucket, input.region),
    originPath: "",
    oacId: input.oacId,
    // The router maps `/` itself; a default root object would bypass it for `/` only.
    defaultRootObject: "",
    aliases: issued ? [previewWildcard(input.domain)] : [],
    ...(issued ? { certificateArn: input.certificate!.arn } : {}),
    spa: false,
    rewriteFunctionArn: input.routerArn,
  };
}

/**
 * The configuration to create (pure): the site distribution's, with caching disabled and no
 * custom error responses.
 *
 * @param spec the spec
 * @returns the configuration
 */
export function previewDistributionConfig(spec: DistributionSpec): DistributionConfig {
  return withPreviewServing(distributionConfig(spec));
}

/**
 * Sets the two preview-only settings on a configuration, keeping everything else (pure).
 *
 * @param config a configuration
 * @returns it with CachingDisabled and no custom error responses
 */
export function withPreviewServing(config: DistributionConfig): DistributionConfig {
  return {
    ...config,
    DefaultCacheBehavior: {
      ...config.DefaultCacheBehavior!,
      CachePolicyId: CACHING_DISABLED_POLICY_ID,
    },
    CustomErrorResponses: { Quantity: 0 },
  };
}

/**
 * How a live configuration differs from the spec (pure): the managed settings, the cache
 * policy and the error responses.
 *
 * @param config the live configuration
 * @param spec the spec
 * @returns one line per difference
 */
export function previewDistributionDrift(
  config: DistributionConfig,
  spec: DistributionSpec,
): string[] {
  const drift = distributionDrift(config, spec);
  const policy = config.DefaultCacheBehavior?.CachePolicyId;
  if (policy !== CACHING_DISABLED_POLICY_ID) {
    drift.push(`cache policy ${policy ?? "(none)"}, want ${CACHING_DISABLED_POLICY_ID}`);
  }
  const errors = config.CustomErrorResponses?.Quantity ?? 0;
  if (errors !== 0) drift.push(`${errors} custom error response(s), want none`);
  return drift;
}
