/**
 * The CloudFront distribution: origin = the bucket's `site/` prefix through the OAC, HTTPS
 * only (HTTP redirects), compressed, the default root object, the rewrite function on viewer
 * requests (pretty URLs: `/blog/` → `/blog/index.html`), the custom domain as alias with its
 * certificate once issued, and the 404 page for missing objects (with `spa` too: the rewrite
 * function sends client routes to the shell, so a missing asset stays a 404).
 *
 * The preview stack's distribution has the same shape with what serves every preview at once:
 * alias `*.<preview domain>`, the whole bucket as origin (the router function rewrites to the
 * full key `previews/<id>/site/…`), AWS's CachingDisabled policy (a redeployed preview is
 * served on the next request and a destroyed one stops being served, with no invalidation)
 * and no custom error responses (`spa` does not apply to previews).
 *
 * @module
 */
import {
  type CacheBehavior,
  type CloudFrontClient,
  CreateDistributionWithTagsCommand,
  type CustomErrorResponses,
  DeleteDistributionCommand,
  type Distribution,
  type DistributionConfig,
  GetDistributionCommand,
  GetDistributionConfigCommand,
  paginateListDistributions,
  UpdateDistributionCommand,
} from "@aws-sdk/client-cloudfront";
import { DeployError } from "../../errors.ts";
import type { NodeOutputs } from "../../state/env_state.ts";
import { SITE_ORIGIN_PATH } from "../../state/bucket_layout.ts";
import { aws, awsErrorCode, awsMaybe, isNotFound } from "../../aws/errors.ts";
import { type DeployedWait, waitDistributionDeployed } from "../../cdn/distribution_deployed.ts";
import { tagList } from "../../aws/tags.ts";
import type { NodeContext, ResourceNode, SiteFacts } from "../resource.ts";
import { bucketOriginDomain } from "./bucket.ts";
import { previewWildcard } from "../../config/names.ts";
import { destroyCommandFor } from "../../config/env_name.ts";
import { optionalOutput, requireOutput } from "./outputs.ts";

/** The origin id inside the distribution. */
export const SITE_ORIGIN_ID = "site-bucket";

/** AWS managed cache policy "CachingOptimized" (gzip/brotli keys, long TTLs). */
export const CACHING_OPTIMIZED_POLICY_ID = "658327ea-f89d-4fab-a63d-7e88639e58f6";

/** The page shown for missing objects. */
export const NOT_FOUND_PAGE = "/404.html";

/** How long CloudFront caches an error answer, in seconds. */
const ERROR_CACHING_SECONDS = 10;

/** Everything the distribution's description depends on. */
export interface DistributionSpec {
  /** Unique per site environment; CloudFront refuses a second distribution with it. */
  callerReference: string;
  /** Marks the distribution as this site's, to find it again without state. */
  comment: string;
  /** The bucket's regional S3 domain. */
  originDomain: string;
  /** `/site`. */
  originPath: string;
  /** The OAC id. */
  oacId: string;
  /** `defaultRootObject`. */
  defaultRootObject: string;
  /** The custom domain, once its certificate is issued; empty otherwise. */
  aliases: string[];
  /** The issued certificate for `aliases`. */
  certificateArn?: string;
  /**
   * The published rewrite function to run on viewer requests; when absent (pure tests of other
   * settings) the function associations are left as they are.
   */
  rewriteFunctionArn?: string;
}

/** The event the rewrite function runs on: before the cache lookup, so the cache key is the object's. */
export const REWRITE_EVENT_TYPE = "viewer-request";

/**
 * The distribution spec for a site (pure). The domain is attached only with an issued
 * certificate; until then the site is served from its CDN domain.
 *
 * @param facts the site
 * @param oacId the OAC id
 * @param certificate the certificate's ARN and status, when a domain is set
 * @param rewriteFunctionArn the published rewrite function
 * @returns the spec
 */
export function distributionSpec(
  facts: SiteFacts,
  oacId: string,
  certificate?: { arn: string; status: string },
  rewriteFunctionArn?: string,
): DistributionSpec {
  const issued = facts.config.domain !== undefined && certificate?.status === "ISSUED";
  return {
    callerReference: `deploy-${facts.bucket}`,
    comment: `deploy ${facts.bucket}`,
    originDomain: bucketOriginDomain(facts.bucket, facts.config.region),
    originPath: SITE_ORIGIN_PATH,
    oacId,
    defaultRootObject: facts.config.defaultRootObject,
    aliases: issued ? [facts.config.domain!] : [],
    ...(issued ? { certificateArn: certificate!.arn } : {}),
    ...(rewriteFunctionArn ? { rewriteFunctionArn } : {}),
  };
}

/**
 * The cache behaviour's function associations with the rewrite function on viewer requests
 * (pure): any viewer-response function someone added is kept; CloudFront allows one function
 * per event type, so ours replaces another viewer-request one.
 *
 * @param current the live associations
 * @param functionArn the rewrite function
 * @returns the associations to set
 */
export function withRewriteFunction(
  current: CacheBehavior["FunctionAssociations"],
  functionArn: string,
): NonNullable<CacheBehavior["FunctionAssociations"]> {
  const items = [
    ...(current?.Items ?? []).filter((a) => a.EventType !== REWRITE_EVENT_TYPE),
    { EventType: REWRITE_EVENT_TYPE as typeof REWRITE_EVENT_TYPE, FunctionARN: functionArn },
  ];
  return { Quantity: items.length, Items: items };
}

/**
 * The error pages (pure): a 404 shows the 404 page with 404, with `spa` too (its client
 * routes get the shell from the rewrite function, before S3 is asked).
 *
 * @returns the custom error responses
 */
export function errorResponses(): CustomErrorResponses {
  return {
    Quantity: 1,
    Items: [{
      ErrorCode: 404,
      ResponsePagePath: NOT_FOUND_PAGE,
      ResponseCode: "404",
      ErrorCachingMinTTL: ERROR_CACHING_SECONDS,
    }],
  };
}

/**
 * Whether a live configuration still has the error response `spa` used to be created with
 * (pure): every 404 answered with `/index.html` and 200, a missing asset included. It is the
 * one error response bootstrap replaces; any other was set by someone and is kept.
 *
 * @param config the live configuration
 * @returns true when the shell answers every 404
 */
export function hasShellErrorResponse(config: DistributionConfig): boolean {
  return (config.CustomErrorResponses?.Items ?? []).some((r) =>
    r.ErrorCode === 404 && r.ResponsePagePath === "/index.html" && r.ResponseCode === "200"
  );
}

/**
 * The full `DistributionConfig` to create (pure).
 *
 * @param spec the spec
 * @returns the configuration
 *
 * @example
 * ```ts
 * import type { SiteFacts } from "../resource.ts";
 *
 * const certificateOf = (facts: SiteFacts) =>
 *   distributionConfig(distributionSpec(facts, "E2OAC")).ViewerCertificate;
 * // { CloudFrontDefaultCertificate: true } without a domain
 * ```
 */
export function distributionConfig(spec: DistributionSpec): DistributionConfig {
  return applyManaged({
    CallerReference: spec.callerReference,
    Comment: spec.comment,
    Enabled: true,
    Origins: { Quantity: 0, Items: [] },
    DefaultCacheBehavior: {
      TargetOriginId: SITE_ORIGIN_ID,
      ViewerProtocolPolicy: "redirect-to-https",
      AllowedMethods: {
        Quantity: 2,
        Items: ["GET", "HEAD"],
        CachedMethods: { Quantity: 2, Items: ["GET", "HEAD"] },
      },
      Compress: true,
      CachePolicyId: CACHING_OPTIMIZED_POLICY_ID,
    },
    CustomErrorResponses: errorResponses(),
    HttpVersion: "http2and3",
    IsIPV6Enabled: true,
    PriceClass: "PriceClass_All",
  }, spec);
}

/**
 * Sets the settings bootstrap manages on a configuration, keeping everything else (pure).
 * The error pages are set at creation; afterwards only the shell-for-every-404 response of
 * earlier versions' `spa` is replaced ({@linkcode hasShellErrorResponse}).
 *
 * @param config the current configuration
 * @param spec the spec
 * @returns the updated configuration
 */
export function applyManaged(
  config: DistributionConfig,
  spec: DistributionSpec,
): DistributionConfig {
  const others = (config.Origins?.Items ?? []).filter((o) => o.Id !== SITE_ORIGIN_ID);
  const origins = [...others, {
    Id: SITE_ORIGIN_ID,
    DomainName: spec.originDomain,
    OriginPath: spec.originPath,
    CustomHeaders: { Quantity: 0 },
    S3OriginConfig: { OriginAccessIdentity: "" },
    OriginAccessControlId: spec.oacId,
  }];
  return {
    ...config,
    ...(hasShellErrorResponse(config) ? { CustomErrorResponses: errorResponses() } : {}),
    Comment: spec.comment,
    Enabled: true,
    DefaultRootObject: spec.defaultRootObject,
    Origins: { Quantity: origins.length, Items: origins },
    DefaultCacheBehavior: {
      ...config.DefaultCacheBehavior!,
      TargetOriginId: SITE_ORIGIN_ID,
      ViewerProtocolPolicy: "redirect-to-https",
      Compress: true,
      ...(spec.rewriteFunctionArn
        ? {
          FunctionAssociations: withRewriteFunction(
            config.DefaultCacheBehavior?.FunctionAssociations,
            spec.rewriteFunctionArn,
          ),
        }
        : {}),
    },
    Aliases: spec.aliases.length > 0
      ? { Quantity: spec.aliases.length, Items: [...spec.aliases] }
      : { Quantity: 0 },
    ViewerCertificate: spec.certificateArn
      ? {
        ACMCertificateArn: spec.certificateArn,
        SSLSupportMethod: "sni-only",
        MinimumProtocolVersion: "TLSv1.2_2021",
      }
      : { CloudFrontDefaultCertificate: true, MinimumProtocolVersion: "TLSv1" },
  };
}

/**
 * How a live configuration differs from the spec in the managed settings (pure).
 *
 * @param config the live configuration
 * @param spec the spec
 * @returns one line per difference
 */
export function distributionDrift(config: DistributionConfig, spec: DistributionSpec): string[] {
  const origin = config.Origins?.Items?.find((o) => o.Id === SITE_ORIGIN_ID);
  const cb = config.DefaultCacheBehavior;
  const checks: [string, unknown, unknown][] = [
    ["origin", origin?.DomainName, spec.originDomain],
    ["origin path", origin?.OriginPath ?? "", spec.originPath],
    ["origin access control", origin?.OriginAccessControlId, spec.oacId],
    ["default root object", config.DefaultRootObject ?? "", spec.defaultRootObject],
    [
      "aliases",
      (config.Aliases?.Items ?? []).join(",") || "(none)",
      spec.aliases.join(",") || "(none)",
    ],
    [
      "certificate",
      config.ViewerCertificate?.ACMCertificateArn ?? "(default)",
      spec.certificateArn ?? "(default)",
    ],
    ["viewer protocol policy", cb?.ViewerProtocolPolicy, "redirect-to-https"],
    ["target origin", cb?.TargetOriginId, SITE_ORIGIN_ID],
    ["compression", cb?.Compress, true],
    ["enabled", config.Enabled, true],
    ...(spec.rewriteFunctionArn
      ? [[
        `${REWRITE_EVENT_TYPE} function`,
        cb?.FunctionAssociations?.Items?.find((a) => a.EventType === REWRITE_EVENT_TYPE)
          ?.FunctionARN ?? "(none)",
        spec.rewriteFunctionArn,
      ] as [string, unknown, unknown]]
      : []),
  ];
  return checks.filter(([, live, want]) => live !== want).map(([what, live, want]) =>
    `${what} ${String(live)}, want ${String(want)}`
  );
}

/**
 * The site distribution's error-page drift (pure): only the shell answering every 404, which
 * bootstrap replaces ({@linkcode hasShellErrorResponse}).
 *
 * @param config the live configuration
 * @returns one line, or none
 */
export function errorPagesDrift(config: DistributionConfig): string[] {
  return hasShellErrorResponse(config)
    ? ["404 answered with /index.html and 200 (missing assets too), want the 404 page"]
    : [];
}

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

function specFor(ctx: NodeContext): DistributionSpec {
  const arn = optionalOutput(ctx, "certificate", "arn");
  // The preview stack validates its certificate in the same run (Route 53): that node's
  // status is the newer one.
  const status = optionalOutput(ctx, "certificateValidation", "status") ??
    optionalOutput(ctx, "certificate", "status");
  const preview = ctx.facts.preview;
  if (preview) {
    return previewDistributionSpec({
      bucket: ctx.facts.bucket,
      region: ctx.facts.config.region,
      domain: preview.domain,
      oacId: requireOutput(ctx, "oac", "id"),
      ...(arn && status ? { certificate: { arn, status } } : {}),
      routerArn: requireOutput(ctx, "rewriteFunction", "arn"),
    });
  }
  return distributionSpec(
    ctx.facts,
    requireOutput(ctx, "oac", "id"),
    arn && status ? { arn, status } : undefined,
    requireOutput(ctx, "rewriteFunction", "arn"),
  );
}

function outputsOf(d: Distribution): NodeOutputs {
  return {
    id: d.Id ?? "",
    arn: d.ARN ?? "",
    domainName: d.DomainName ?? "",
    enabled: d.DistributionConfig?.Enabled ?? false,
    aliases: [...(d.DistributionConfig?.Aliases?.Items ?? [])],
  };
}

async function get(cf: CloudFrontClient, id: string) {
  return await awsMaybe(
    { resource: `distribution ${id}`, action: "cloudfront:GetDistribution" },
    () => cf.send(new GetDistributionCommand({ Id: id })),
    "NoSuchDistribution",
  );
}

async function findByComment(cf: CloudFrontClient, comment: string): Promise<string | undefined> {
  return await aws({
    resource: `distribution "${comment}"`,
    action: "cloudfront:ListDistributions",
  }, async () => {
    for await (const page of paginateListDistributions({ client: cf }, {})) {
      const hit = page.DistributionList?.Items?.find((d) => d.Comment === comment);
      if (hit?.Id) return hit.Id;
    }
    return undefined;
  });
}

async function findLive(ctx: NodeContext) {
  const cf = ctx.clients.cloudfront;
  const recorded = typeof ctx.recorded?.id === "string" ? ctx.recorded.id : undefined;
  const byId = recorded ? await get(cf, recorded) : undefined;
  if (byId?.Distribution) return byId.Distribution;
  const id = await findByComment(cf, distributionComment(ctx.facts));
  return id ? (await get(cf, id))?.Distribution : undefined;
}

/**
 * The comment marking a site's distribution.
 *
 * @param facts the site
 * @returns `deploy <bucket>`
 */
export function distributionComment(facts: SiteFacts): string {
  return `deploy ${facts.bucket}`;
}

/**
 * How long `destroy` waits for a disabled distribution to be `Deployed` (CloudFront's
 * precondition for deleting it): up to 45 minutes, polling every 20 s to 1 min.
 */
const DELETE_DEPLOYED_WAIT: DeployedWait = {
  maxWaitSeconds: 45 * 60,
  minDelaySeconds: 20,
  maxDelaySeconds: 60,
};

/**
 * Waits until the distribution is `Deployed` (CloudFront's precondition for deleting it), or
 * gone.
 *
 * @param ctx node context (CloudFront; the wait's bounds, which tests shorten)
 * @param id distribution id
 * @returns false when the distribution is gone already
 * @throws {DeployError} `wait_timeout`
 */
async function waitDeployedForDelete(ctx: NodeContext, id: string): Promise<boolean> {
  const wait = ctx.deployedWait ?? DELETE_DEPLOYED_WAIT;
  try {
    if (await waitDistributionDeployed(ctx.clients.cloudfront, id, wait) === "deployed") {
      return true;
    }
  } catch (err) {
    if (err instanceof DeployError && isNotFound(err.cause, "NoSuchDistribution")) return false;
    throw err;
  }
  throw new DeployError("wait_timeout", `distribution ${id} is still InProgress`, {
    hint: `CloudFront is slow to propagate; run \`${
      destroyCommandFor(ctx.facts.env)
    }\` again later`,
  });
}

/** The distribution node. */
export const distributionNode: ResourceNode = {
  id: "distribution",
  dependsOn: ["bucket", "oac", "rewriteFunction", "certificate"],
  wanted: () => true,
  label: (facts) => `distribution for ${facts.bucket}`,
  async read(ctx) {
    const d = await findLive(ctx);
    if (!d?.DistributionConfig) return null;
    const drift = ctx.outputs.oac?.id === undefined
      ? ["origin access control missing"]
      : ctx.outputs.rewriteFunction?.arn === undefined
      ? ["rewrite function missing"]
      : ctx.facts.preview
      ? previewDistributionDrift(d.DistributionConfig, specFor(ctx))
      : [
        ...distributionDrift(d.DistributionConfig, specFor(ctx)),
        ...errorPagesDrift(d.DistributionConfig),
      ];
    return { outputs: outputsOf(d), drift };
  },
  async create(ctx) {
    const spec = specFor(ctx);
    const cf = ctx.clients.cloudfront;
    try {
      const out = await cf.send(
        new CreateDistributionWithTagsCommand({
          DistributionConfigWithTags: {
            DistributionConfig: ctx.facts.preview
              ? previewDistributionConfig(spec)
              : distributionConfig(spec),
            Tags: { Items: tagList(ctx.facts.tags) },
          },
        }),
      );
      return outputsOf(out.Distribution!);
    } catch (err) {
      if (awsErrorCode(err) === "DistributionAlreadyExists") {
        // Same caller reference: a crashed run created it; adopt it.
        const id = await findByComment(cf, spec.comment);
        const found = id ? await get(cf, id) : undefined;
        if (found?.Distribution) return outputsOf(found.Distribution);
      }
      return await aws(
        {
          resource: `distribution for ${ctx.facts.bucket}`,
          action: "cloudfront:CreateDistributionWithTags",
        },
        () => Promise.reject(err),
      );
    }
  },
  async update(ctx, live) {
    const id = String(live.outputs.id);
    const cf = ctx.clients.cloudfront;
    const current = await aws({
      resource: `distribution ${id}`,
      action: "cloudfront:GetDistributionConfig",
    }, () => cf.send(new GetDistributionConfigCommand({ Id: id })));
    const out = await aws({
      resource: `distribution ${id}`,
      action: "cloudfront:UpdateDistribution",
    }, () =>
      cf.send(
        new UpdateDistributionCommand({
          Id: id,
          IfMatch: current.ETag,
          DistributionConfig: ctx.facts.preview
            ? withPreviewServing(applyManaged(current.DistributionConfig!, specFor(ctx)))
            : applyManaged(current.DistributionConfig!, specFor(ctx)),
        }),
      ));
    return outputsOf(out.Distribution!);
  },
  async delete(ctx, live) {
    const id = String(live.outputs.id);
    const cf = ctx.clients.cloudfront;
    const current = await awsMaybe(
      { resource: `distribution ${id}`, action: "cloudfront:GetDistributionConfig" },
      () => cf.send(new GetDistributionConfigCommand({ Id: id })),
      "NoSuchDistribution",
    );
    if (!current) return;
    if (current.DistributionConfig?.Enabled) {
      ctx.note(`disabling distribution ${id}`);
      await aws(
        { resource: `distribution ${id}`, action: "cloudfront:UpdateDistribution" },
        () =>
          cf.send(
            new UpdateDistributionCommand({
              Id: id,
              IfMatch: current.ETag,
              DistributionConfig: { ...current.DistributionConfig!, Enabled: false },
            }),
          ),
      );
    }
    ctx.note(
      `waiting for distribution ${id} to deploy (CloudFront deletes only deployed, disabled distributions)`,
    );
    if (!(await waitDeployedForDelete(ctx, id))) return;
    const latest = await get(cf, id);
    if (!latest) return;
    await aws(
      { resource: `distribution ${id}`, action: "cloudfront:DeleteDistribution" },
      () => cf.send(new DeleteDistributionCommand({ Id: id, IfMatch: latest.ETag })),
    );
  },
};
