/**
 * Puts a build's rules live on CloudFront, before the sync uploads its pages: the store's new
 * entries, the viewer-request function, the viewer-response function and the response headers
 * policy, then the distribution's associations, then the store's stale entries. Every step
 * compares with what is live first, so an identical redeploy publishes nothing and leaves the
 * distribution alone; a plan (`dryRun`) reports the same changes and makes none.
 *
 * @module
 */
import {
  type CacheBehavior,
  type CloudFrontClient,
  CreateResponseHeadersPolicyCommand,
  type DistributionConfig,
  GetDistributionConfigCommand,
  GetResponseHeadersPolicyConfigCommand,
  type ResponseHeadersPolicyConfig,
  UpdateDistributionCommand,
  UpdateResponseHeadersPolicyCommand,
} from "@aws-sdk/client-cloudfront";
import { aws, awsErrorCode } from "../aws/errors.ts";
import {
  putFunction,
  readFunctionStage,
  REWRITE_RUNTIME,
  rewriteComment,
  rewriteFunctionDrift,
  type RewriteFunctionSpec,
} from "../infra/nodes/rewrite_function.ts";
import { findHeadersPolicy } from "../infra/nodes/rules_response.ts";
import type { RoutingSpec } from "./routing_spec.ts";
import type { SiteRules } from "./site_rules.ts";
import { DeployError } from "../errors.ts";
import { humanDuration } from "../units.ts";
import {
  type DeployedWait,
  RULES_DEPLOYED_WAIT,
  waitDistributionDeployed,
} from "../cdn/distribution_deployed.ts";

/** Where a site's rules go live: names, ids and what the function's code depends on (JSON). */
export interface RoutingTarget {
  /** The viewer-request function (`<env>-<siteName>-rewrite`), made by bootstrap. */
  readonly rewriteFunction: string;
  /** The site bucket (named in the comments of what the deploy creates). */
  readonly bucket: string;
  /** The viewer-response function (`<env>-<siteName>-headers`), made by the first deploy needing it. */
  readonly headersFunction: string;
  /** The response headers policy (`<env>-<siteName>-headers`). */
  readonly headersPolicy: string;
  /** The distribution. */
  readonly distributionId: string;
  /** `defaultRootObject`. */
  readonly indexDocument: string;
  /** Config `spa`. */
  readonly spa: boolean;
  /** The rules store bootstrap made, when it did. */
  readonly store?: { readonly name: string; readonly arn: string };
  /** The config's rules (the build output's files add theirs after them). */
  readonly configRules: SiteRules;
  /** Tags of what the deploy creates. */
  readonly tags: Readonly<Record<string, string>>;
}

/** The rules store's data plane, as the deploy uses it. */
export interface RulesStoreClient {
  /** Every key and value of the store. */
  entries(arn: string): Promise<Map<string, string>>;
  /** Puts and deletes keys (any number; the client batches them). */
  update(arn: string, puts: ReadonlyMap<string, string>, deletes: readonly string[]): Promise<void>;
}

/** What the rules are, and what going live changed (or, planned, would change). */
export interface RulesReport {
  /** Redirect and rewrite rules. */
  readonly redirects: number;
  /** Header rules. */
  readonly headers: number;
  /** Where the redirect table is: in the function's code, or in the rules store. */
  readonly table: "inline" | "store";
  /** Entries the store holds for the rules. */
  readonly storeEntries: number;
  /** Whether anything changed on CloudFront. */
  readonly changed: boolean;
  /** One line per change, in the order they were made. */
  readonly changes: readonly string[];
}

/** The distribution's default behaviour as the rules want it (pure). */
export interface RoutingAssociations {
  /** The viewer-response function's ARN; none: no viewer-response function. */
  readonly viewerResponseArn?: string | undefined;
  /** The response headers policy's id; none: no policy. */
  readonly policyId?: string | undefined;
}

/** The event the per-path headers function runs on. */
export const HEADERS_EVENT_TYPE = "viewer-response";

/**
 * The default cache behaviour with the rules' viewer-response function and response headers
 * policy (pure); everything else (the viewer-request function bootstrap manages) is kept.
 *
 * @param behaviour the live default cache behaviour
 * @param wanted the associations
 * @returns the behaviour to set
 */
export function withRoutingAssociations(
  behaviour: CacheBehavior | DistributionConfig["DefaultCacheBehavior"],
  wanted: RoutingAssociations,
): NonNullable<DistributionConfig["DefaultCacheBehavior"]> {
  const items = [
    ...(behaviour?.FunctionAssociations?.Items ?? []).filter((a) =>
      a.EventType !== HEADERS_EVENT_TYPE
    ),
    ...(wanted.viewerResponseArn
      ? [{
        EventType: HEADERS_EVENT_TYPE as typeof HEADERS_EVENT_TYPE,
        FunctionARN: wanted.viewerResponseArn,
      }]
      : []),
  ];
  const { ResponseHeadersPolicyId: _, ...rest } = behaviour ?? {} as NonNullable<
    DistributionConfig["DefaultCacheBehavior"]
  >;
  return {
    ...rest,
    FunctionAssociations: { Quantity: items.length, Items: items },
    ...(wanted.policyId ? { ResponseHeadersPolicyId: wanted.policyId } : {}),
  } as NonNullable<DistributionConfig["DefaultCacheBehavior"]>;
}

/**
 * Whether the live behaviour already has the associations (pure).
 *
 * @param behaviour the live default cache behaviour
 * @param wanted the associations
 * @returns true when nothing needs changing
 */
export function hasRoutingAssociations(
  behaviour: DistributionConfig["DefaultCacheBehavior"],
  wanted: RoutingAssociations,
): boolean {
  const live = behaviour?.FunctionAssociations?.Items?.find((a) =>
    a.EventType === HEADERS_EVENT_TYPE
  )?.FunctionARN;
  return (live ?? "") === (wanted.viewerResponseArn ?? "") &&
    (behaviour?.ResponseHeadersPolicyId ?? "") === (wanted.policyId ?? "");
}

/**
 * The response headers policy's configuration (pure): the site-wide headers as custom headers
 * that override the origin's.
 *
 * @param name the policy name
 * @param comment its comment
 * @param headers name → value
 * @returns the configuration
 */
export function policyConfig(
  name: string,
  comment: string,
  headers: Readonly<Record<string, string>>,
): ResponseHeadersPolicyConfig {
  const items = Object.entries(headers).map(([Header, Value]) => ({
    Header,
    Value,
    Override: true,
  }));
  return {
    Name: name,
    Comment: comment,
    CustomHeadersConfig: { Quantity: items.length, Items: items },
  };
}

/** The policy's headers as a comparable list (pure). */
function policyHeaders(config: ResponseHeadersPolicyConfig | undefined): string {
  return JSON.stringify(
    (config?.CustomHeadersConfig?.Items ?? []).map((i) => [i.Header, i.Value, i.Override]),
  );
}

/** What {@linkcode applyRouting} needs. */
export interface RoutingDeps {
  /** CloudFront (functions, policies, distribution). */
  readonly cloudfront: CloudFrontClient;
  /** The rules store's data plane; needed only when a store is involved. */
  readonly store?: RulesStoreClient;
  /** How long and how often to wait for the distribution to deploy. Default {@linkcode RULES_DEPLOYED_WAIT}. */
  readonly deployedWait?: DeployedWait;
}

/** What {@linkcode applyRouting} tells, and what stops it. */
export interface RoutingHooks {
  /** The rules changed what the edge locations run: the wait for `Deployed` starts. */
  readonly onWaitDeployed?: () => void;
  /** Ctrl-C: stops the wait (`interrupted`). */
  readonly signal?: AbortSignal;
}

/**
 * Puts the spec live (or, with `dryRun`, says what would change). When a function, the policy
 * or the associations changed, it then waits until the distribution is `Deployed` (the edge
 * locations run the new rules) before it returns, so the caller's sync never meets old rules;
 * the store's new keys need no wait (CloudFront has no status for them; it says seconds).
 *
 * @param deps CloudFront, the store's data plane, the wait's bounds
 * @param target names and ids
 * @param spec what the rules become ({@linkcode routingSpec})
 * @param dryRun compare only
 * @param hooks the wait starting; Ctrl-C
 * @returns what changed
 * @throws DeployError from AWS calls (naming the action and resource);
 *   `rules_propagation_timeout`; `interrupted`
 */
export async function applyRouting(
  deps: RoutingDeps,
  target: RoutingTarget,
  spec: RoutingSpec,
  dryRun: boolean,
  hooks: RoutingHooks = {},
): Promise<RulesReport> {
  const cf = deps.cloudfront;
  const changes: string[] = [];
  const verb = (done: string, planned: string) => dryRun ? planned : done;

  // The store first: a function switching to look-ups must find its rules there.
  let staleKeys: string[] = [];
  if (target.store) {
    const client = requireStoreClient(deps, target.store.name);
    const live = await client.entries(target.store.arn);
    const puts = new Map([...spec.storeEntries].filter(([k, v]) => live.get(k) !== v));
    staleKeys = [...live.keys()].filter((k) => !spec.storeEntries.has(k)).sort();
    if (puts.size > 0) {
      if (!dryRun) await client.update(target.store.arn, puts, []);
      changes.push(
        `key value store ${target.store.name}: ${puts.size} key(s) ${verb("put", "to put")}`,
      );
    }
  } else if (spec.table === "store") {
    requireStoreClient(deps, "(none)");
  }

  const storePuts = changes.length;

  const rewrite: RewriteFunctionSpec = {
    name: target.rewriteFunction,
    code: spec.viewerRequestCode,
    runtime: REWRITE_RUNTIME,
    comment: rewriteComment(target.bucket, target.spa, target.indexDocument),
    ...(target.store ? { keyValueStoreArn: target.store.arn } : {}),
  };
  const rewritten = await putIfChanged(cf, rewrite, target.tags, dryRun);
  if (rewritten.write !== "unchanged") {
    changes.push(`viewer-request function ${rewrite.name} ${verb(rewritten.write, "to publish")}`);
  }

  let viewerResponseArn: string | undefined;
  if (spec.viewerResponseCode !== undefined) {
    const headers: RewriteFunctionSpec = {
      name: target.headersFunction,
      code: spec.viewerResponseCode,
      runtime: REWRITE_RUNTIME,
      comment: `deploy ${target.bucket}: response headers by path, 404 rules`,
    };
    const put = await putIfChanged(cf, headers, target.tags, dryRun);
    viewerResponseArn = put.arn || `(new) ${headers.name}`;
    if (put.write !== "unchanged") {
      changes.push(`viewer-response function ${headers.name} ${verb(put.write, "to publish")}`);
    }
  }

  let policyId: string | undefined;
  if (Object.keys(spec.policyHeaders).length > 0) {
    const put = await putPolicy(cf, target, spec.policyHeaders, dryRun);
    policyId = put.id || `(new) ${target.headersPolicy}`;
    if (put.write !== "unchanged") {
      changes.push(
        `response headers policy ${target.headersPolicy} ${verb(put.write, "to write")}`,
      );
    }
  }

  if (await associate(cf, target.distributionId, { viewerResponseArn, policyId }, dryRun)) {
    changes.push(
      `distribution ${target.distributionId}: viewer-response function and headers policy ${
        verb("associated", "to associate")
      }`,
    );
  }

  // Everything but the store's keys reaches the edge locations only once the distribution is
  // deployed again; a stale key is deleted after that, when no edge runs a function asking
  // for it any more.
  if (!dryRun && changes.length > storePuts) {
    hooks.onWaitDeployed?.();
    await waitRulesDeployed(deps, target.distributionId, hooks.signal);
  }

  // Last: entries no rule uses any more, once the function no longer asks for them.
  if (target.store && staleKeys.length > 0) {
    if (!dryRun) await deps.store!.update(target.store.arn, new Map(), staleKeys);
    changes.push(
      `key value store ${target.store.name}: ${staleKeys.length} key(s) ${
        verb("deleted", "to delete")
      }`,
    );
  }
  return {
    redirects: spec.redirects,
    headers: spec.headers,
    table: spec.table,
    storeEntries: spec.storeEntries.size,
    changed: changes.length > 0,
    changes,
  };
}

async function waitRulesDeployed(
  deps: RoutingDeps,
  id: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  const wait = deps.deployedWait ?? RULES_DEPLOYED_WAIT;
  if (await waitDistributionDeployed(deps.cloudfront, id, wait, signal) === "deployed") return;
  throw new DeployError(
    "rules_propagation_timeout",
    `distribution ${id} was still deploying the new redirect/header rules after ${
      humanDuration(wait.maxWaitSeconds * 1000)
    }; no page was uploaded`,
    {
      hint: "the rules are published; once `aws cloudfront get-distribution --id " + id +
        "` says Deployed, run the deploy again (safe: it uploads the pages and waits for nothing)",
    },
  );
}

function requireStoreClient(deps: RoutingDeps, name: string): RulesStoreClient {
  if (deps.store) return deps.store;
  throw new DeployError(
    "rules_too_large",
    `the redirect rules need the rules store (${name}), which this run cannot reach`,
    { hint: "run `deploy bootstrap` to create the rules store, then deploy again" },
  );
}

/** {@linkcode putFunction}, or with `dryRun` what it would do. */
async function putIfChanged(
  cf: CloudFrontClient,
  spec: RewriteFunctionSpec,
  tags: Readonly<Record<string, string>>,
  dryRun: boolean,
): Promise<{ write: "created" | "published" | "unchanged"; arn: string }> {
  if (!dryRun) return await putFunction(cf, spec, tags);
  const development = await readFunctionStage(cf, spec.name, "DEVELOPMENT");
  if (!development) return { write: "created", arn: "" };
  const live = await readFunctionStage(cf, spec.name, "LIVE");
  return {
    write: rewriteFunctionDrift(live, spec).length === 0 ? "unchanged" : "published",
    arn: development.arn,
  };
}

async function putPolicy(
  cf: CloudFrontClient,
  target: RoutingTarget,
  headers: Readonly<Record<string, string>>,
  dryRun: boolean,
): Promise<{ write: "created" | "updated" | "unchanged"; id: string }> {
  const name = target.headersPolicy;
  const resource = `response headers policy ${name}`;
  const config = policyConfig(name, `deploy ${target.bucket}: site-wide headers`, headers);
  const id = await findHeadersPolicy(cf, name);
  if (!id) {
    if (dryRun) return { write: "created", id: "" };
    try {
      const created = await cf.send(
        new CreateResponseHeadersPolicyCommand({ ResponseHeadersPolicyConfig: config }),
      );
      return { write: "created", id: created.ResponseHeadersPolicy?.Id ?? "" };
    } catch (err) {
      if (awsErrorCode(err) === "ResponseHeadersPolicyAlreadyExists") {
        return await putPolicy(cf, target, headers, dryRun);
      }
      return await aws(
        { resource, action: "cloudfront:CreateResponseHeadersPolicy" },
        () => Promise.reject(err),
      );
    }
  }
  const live = await aws(
    { resource, action: "cloudfront:GetResponseHeadersPolicyConfig" },
    () => cf.send(new GetResponseHeadersPolicyConfigCommand({ Id: id })),
  );
  if (policyHeaders(live.ResponseHeadersPolicyConfig) === policyHeaders(config)) {
    return { write: "unchanged", id };
  }
  if (!dryRun) {
    await aws(
      { resource, action: "cloudfront:UpdateResponseHeadersPolicy" },
      () =>
        cf.send(
          new UpdateResponseHeadersPolicyCommand({
            Id: id,
            IfMatch: live.ETag,
            ResponseHeadersPolicyConfig: config,
          }),
        ),
    );
  }
  return { write: "updated", id };
}

/** Sets the associations when they differ; true when they did. */
async function associate(
  cf: CloudFrontClient,
  id: string,
  wanted: RoutingAssociations,
  dryRun: boolean,
): Promise<boolean> {
  const resource = `distribution ${id}`;
  const current = await aws(
    { resource, action: "cloudfront:GetDistributionConfig" },
    () => cf.send(new GetDistributionConfigCommand({ Id: id })),
  );
  const config = current.DistributionConfig!;
  if (hasRoutingAssociations(config.DefaultCacheBehavior, wanted)) return false;
  if (!dryRun) {
    await aws(
      { resource, action: "cloudfront:UpdateDistribution" },
      () =>
        cf.send(
          new UpdateDistributionCommand({
            Id: id,
            IfMatch: current.ETag,
            DistributionConfig: {
              ...config,
              DefaultCacheBehavior: withRoutingAssociations(config.DefaultCacheBehavior, wanted),
            },
          }),
        ),
    );
  }
  return true;
}
