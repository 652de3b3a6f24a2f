/**
 * The CloudFront Function `<env>-<siteName>-rewrite` that gives a static site pretty URLs.
 *
 * Behind an S3 REST origin with Origin Access Control, CloudFront applies `DefaultRootObject`
 * only to `/`: a request for `/blog/` asks S3 for the key `site/blog/`, which does not exist,
 * so every directory URL (the ones the sitemap and invalidations use) answers 404. This
 * viewer-request function maps directory URLs onto their index objects before the cache
 * lookup, as static hosts do:
 *
 * - a URI ending in `/` gets the index document: `/blog/` → `/blog/index.html`;
 * - a URI whose last segment has no `.` is taken as a directory: `/about` →
 *   `/about/index.html` (what Astro, Hugo, Eleventy, Jekyll … emit for `/about`);
 * - anything else (`/a.css`, `/v1.2/` aside, `/feed.xml`) is left alone.
 *
 * The index document is the site's `defaultRootObject`, so `/` keeps serving what it served.
 *
 * With `spa`, the function is where a client route gets the app shell: every URI whose last
 * segment has no `.` (`/`, `/dashboard/settings`, `/team/`) is rewritten to `/<index>`, and
 * anything with an extension passes through, so a missing file (a stale tab's
 * `/assets/app.3f2a.js`) is S3's 404 and the 404 page, never HTML with 200 parsed as
 * JavaScript. A viewer-request function cannot know which objects exist, which is why the
 * shell is chosen by the URI's shape and the distribution keeps no error response that turns
 * every 404 into the shell (`distribution.ts`).
 *
 * The node creates the function, publishes it to `LIVE` (the stage distributions run), and
 * the distribution node associates it with its default cache behaviour (viewer-request).
 *
 * @module
 */
import {
  type CloudFrontClient,
  CreateFunctionCommand,
  DeleteFunctionCommand,
  DescribeFunctionCommand,
  type FunctionConfig,
  type FunctionRuntime,
  type FunctionStage,
  GetFunctionCommand,
  PublishFunctionCommand,
  UpdateFunctionCommand,
} from "@aws-sdk/client-cloudfront";
import { aws, awsErrorCode, awsFailure, awsMaybe } from "../../aws/errors.ts";
import { tagList } from "../../aws/tags.ts";
import type { NodeContext, ResourceNode, SiteFacts } from "../resource.ts";
import { previewRouterName, siteRewriteFunctionName } from "../../config/names.ts";
import { liveRouterAuth, previewRouterCode } from "./router_function.ts";

/** The CloudFront Functions runtime the code is written for. */
/** The first line of an inline rules section. */
export const RULES_HEADER = "// deploy: redirect and rewrite rules";

/** The first line of a store-backed rules section: cloudfront-js-2.0's KeyValueStore module. */
// Built in two parts: the agent bundle's import scanner reads this file's text, and the whole
// line would read to it as an import of a package named `cloudfront`.
export const STORE_IMPORT = ["import cf", "from 'cloudfront';"].join(" ");

export const REWRITE_RUNTIME: FunctionRuntime = "cloudfront-js-2.0";

/** The first line of the pretty-URL code: where a rules section before it ends. */
const PRETTY_MARKER = "// deploy: pretty URLs.";
/** The first line of the single-page code. */
const SPA_MARKER = "// deploy: single-page app.";
const BODY_MARKERS = [PRETTY_MARKER, SPA_MARKER];

/** CloudFront's "function does not exist (in this stage)" error code. */
const NO_SUCH_FUNCTION = "NoSuchFunctionExists";

/**
 * The function's name for a site (pure): `<env>-<siteName>-rewrite`, or for the preview stack
 * its router `preview-<siteName>-router` (`router_function.ts`). CloudFront allows 64
 * characters of `[a-zA-Z0-9-_]`; `<env>-<siteName>` is already held to the bucket name's
 * limits (at most 49 characters, lowercase letters, digits and hyphens).
 *
 * @param facts the site
 * @returns the function name
 */
export function rewriteFunctionName(facts: SiteFacts): string {
  return facts.preview
    ? previewRouterName(facts.config.siteName)
    : siteRewriteFunctionName(facts.env, facts.config.siteName);
}

/**
 * The function's JavaScript (pure): a `cloudfront-js-2.0` viewer-request handler. Plain ES5
 * with `endsWith`, so the same text runs in CloudFront and, for the tests, in Deno.
 *
 * @param indexDocument the index object appended to directory URLs (`defaultRootObject`)
 * @param spa single-page mode: URIs without an extension get `/<indexDocument>`, the shell
 * @param rules the redirect rules section (`routing/function_rules.ts`), run first; none: ""
 * @returns the source code
 *
 * @example
 * ```ts
 * rewriteFunctionCode("index.html"); // "// deploy: pretty URLs …\nfunction handler(event) {…}"
 * ```
 */
export function rewriteFunctionCode(indexDocument: string, spa = false, rules = ""): string {
  // A store-backed rules section looks rules up asynchronously (`cf.kvs()`), so the handler
  // awaits it; the inline table keeps the handler synchronous.
  const store = rules.startsWith(STORE_IMPORT);
  // JSON.stringify leaves U+2028/U+2029 raw, which older JavaScript parsers reject.
  const index = `var INDEX = ${
    JSON.stringify(indexDocument).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")
  };`;
  const ruled = rules === ""
    ? []
    : [`  var ruled = ${store ? "await " : ""}applyRules(request);`, "  if (ruled) return ruled;"];
  const handler = `${store ? "async " : ""}function handler(event) {`;
  const body = spa
    ? [
      `${SPA_MARKER} No dot in the last segment -> /INDEX (the app shell);`,
      "// a file (/a.js) passes through, so a missing one is a 404, not the shell.",
      index,
      handler,
      "  var request = event.request;",
      ...ruled,
      "  var uri = request.uri;",
      "  if (uri.slice(uri.lastIndexOf('/') + 1).indexOf('.') === -1) {",
      "    request.uri = '/' + INDEX;",
      "  }",
      "  return request;",
      "}",
    ]
    : [
      `${PRETTY_MARKER} /dir/ and /dir (no dot in the last segment) -> /dir/INDEX.`,
      index,
      handler,
      "  var request = event.request;",
      ...ruled,
      "  var uri = request.uri;",
      "  if (uri.endsWith('/')) {",
      "    request.uri = uri + INDEX;",
      "  } else if (uri.slice(uri.lastIndexOf('/') + 1).indexOf('.') === -1) {",
      "    request.uri = uri + '/' + INDEX;",
      "  }",
      "  return request;",
      "}",
    ];
  return [...(rules === "" ? [] : [rules]), ...body, ""].join("\n");
}

/** What the function should be (pure). */
export interface RewriteFunctionSpec {
  /** `<env>-<siteName>-rewrite`. */
  name: string;
  /** The source code. */
  code: string;
  /** {@linkcode REWRITE_RUNTIME}. */
  runtime: FunctionRuntime;
  /** Shown in the console: whose function it is. */
  comment: string;
  /** The KeyValueStore the code may read (`cf.kvs()`), when the site has one. */
  keyValueStoreArn?: string;
}

/** The first line of every rules section (`routing/function_rules.ts`), inline or store-backed. */
const RULES_MARKERS = [RULES_HEADER, STORE_IMPORT];

/**
 * The rules section a live function runs (pure): what the last deploy published before the
 * pretty-URL code, so `bootstrap` can repair the rest without dropping the site's redirects.
 * The rules belong to the deploy (they come from the build output's `_redirects` too), and
 * bootstrap never sees the build.
 *
 * @param code the live function's code
 * @returns the rules section, or "" when the code has none
 */
export function liveRulesSection(code: string): string {
  if (!RULES_MARKERS.some((m) => code.startsWith(m))) return "";
  const body = BODY_MARKERS.map((m) => code.indexOf(`\n${m}`)).filter((i) => i !== -1);
  if (body.length === 0) return "";
  return code.slice(0, Math.min(...body));
}

/**
 * The function's desired description for a site (pure): the pretty-URL rewrite, or for the
 * preview stack the router that also picks the preview from the host name.
 *
 * @param facts the site (for the preview stack, with its router's password check)
 * @param rules the redirect rules section the deploy published (`liveRulesSection`); none: ""
 * @param keyValueStoreArn the site's rules store, when bootstrap created one
 * @returns name, code, runtime and comment
 */
export function rewriteFunctionSpec(
  facts: SiteFacts,
  rules = "",
  keyValueStoreArn?: string,
): RewriteFunctionSpec {
  if (facts.preview) {
    return {
      name: rewriteFunctionName(facts),
      code: previewRouterCode(
        facts.preview.domain,
        facts.config.defaultRootObject,
        facts.preview.auth ?? undefined,
      ),
      runtime: REWRITE_RUNTIME,
      comment: `deploy ${facts.bucket}: <id>.${facts.preview.domain} to previews/<id>/site`,
    };
  }
  return {
    name: rewriteFunctionName(facts),
    code: rewriteFunctionCode(facts.config.defaultRootObject, facts.config.spa, rules),
    runtime: REWRITE_RUNTIME,
    comment: rewriteComment(facts.bucket, facts.config.spa, facts.config.defaultRootObject),
    ...(keyValueStoreArn ? { keyValueStoreArn } : {}),
  };
}

/**
 * The site rewrite function's console comment (pure): whose it is and what it does.
 *
 * @param bucket the site bucket
 * @param spa config `spa`
 * @param indexDocument `defaultRootObject`
 * @returns the comment
 */
export function rewriteComment(bucket: string, spa: boolean, indexDocument: string): string {
  return spa
    ? `deploy ${bucket}: client routes to /${indexDocument}`
    : `deploy ${bucket}: directory URLs to ${indexDocument}`;
}

/** A stage as read live: its runtime, code, store and ETag. */
export interface LiveStage {
  /** The function's ARN. */
  arn: string;
  /** Its runtime. */
  runtime: string;
  /** Its code. */
  code: string;
  /** The KeyValueStore associated, if any. */
  keyValueStoreArn?: string;
  /** The stage's ETag. */
  etag: string;
}

/**
 * Reads one stage of a CloudFront Function.
 *
 * @param cf CloudFront client
 * @param name the function
 * @param Stage `DEVELOPMENT` or `LIVE`
 * @returns the stage, or undefined when the function (or that stage) does not exist
 */
export async function readFunctionStage(
  cf: CloudFrontClient,
  name: string,
  Stage: FunctionStage,
): Promise<LiveStage | undefined> {
  const resource = `CloudFront function ${name}`;
  const described = await awsMaybe(
    { resource, action: "cloudfront:DescribeFunction" },
    () => cf.send(new DescribeFunctionCommand({ Name: name, Stage })),
    NO_SUCH_FUNCTION,
  );
  if (!described?.FunctionSummary) return undefined;
  const got = await awsMaybe(
    { resource, action: "cloudfront:GetFunction" },
    () => cf.send(new GetFunctionCommand({ Name: name, Stage })),
    NO_SUCH_FUNCTION,
  );
  if (!got) return undefined;
  const config = described.FunctionSummary.FunctionConfig;
  const store = config?.KeyValueStoreAssociations?.Items?.[0]?.KeyValueStoreARN;
  return {
    arn: described.FunctionSummary.FunctionMetadata?.FunctionARN ?? "",
    runtime: config?.Runtime ?? "",
    code: new TextDecoder().decode(got.FunctionCode ?? new Uint8Array()),
    ...(store ? { keyValueStoreArn: store } : {}),
    etag: described.ETag ?? "",
  };
}

/**
 * How the live stages differ from the spec (pure): only `LIVE` counts, since that is what
 * the distribution runs.
 *
 * @param live the LIVE stage, when published
 * @param spec the spec
 * @returns one line per difference
 */
export function rewriteFunctionDrift(
  live: { runtime: string; code: string; keyValueStoreArn?: string } | undefined,
  spec: RewriteFunctionSpec,
): string[] {
  if (!live) return ["not published to LIVE"];
  const drift: string[] = [];
  if (live.runtime !== spec.runtime) drift.push(`runtime ${live.runtime}, want ${spec.runtime}`);
  if (live.code !== spec.code) drift.push("code differs from this version's rewrite rules");
  if ((live.keyValueStoreArn ?? "") !== (spec.keyValueStoreArn ?? "")) {
    drift.push(
      `key value store ${live.keyValueStoreArn ?? "(none)"}, want ${
        spec.keyValueStoreArn ?? "(none)"
      }`,
    );
  }
  return drift;
}

/** The `FunctionConfig` of a spec. */
function functionConfig(spec: RewriteFunctionSpec): FunctionConfig {
  return {
    Comment: spec.comment,
    Runtime: spec.runtime,
    ...(spec.keyValueStoreArn
      ? {
        KeyValueStoreAssociations: {
          Quantity: 1,
          Items: [{ KeyValueStoreARN: spec.keyValueStoreArn }],
        },
      }
      : {}),
  };
}

/** Writes the spec to DEVELOPMENT (`If-Match` its ETag) and publishes it to LIVE. */
async function updateAndPublish(
  cf: CloudFrontClient,
  spec: RewriteFunctionSpec,
  etag: string,
): Promise<void> {
  const resource = `CloudFront function ${spec.name}`;
  const updated = await aws({ resource, action: "cloudfront:UpdateFunction" }, () =>
    cf.send(
      new UpdateFunctionCommand({
        Name: spec.name,
        IfMatch: etag,
        FunctionConfig: functionConfig(spec),
        FunctionCode: new TextEncoder().encode(spec.code),
      }),
    ));
  // The SDK reads the new ETag from the `ETtag` header the API reference names; an endpoint
  // that answers `ETag` only (ministack) leaves it unset, and the ETag we sent is stale now.
  const next = updated.ETag ?? (await readFunctionStage(cf, spec.name, "DEVELOPMENT"))?.etag ??
    etag;
  await publish(cf, spec.name, next);
}

async function publish(cf: CloudFrontClient, name: string, etag: string): Promise<void> {
  await aws(
    { resource: `CloudFront function ${name}`, action: "cloudfront:PublishFunction" },
    () => cf.send(new PublishFunctionCommand({ Name: name, IfMatch: etag })),
  );
}

/** What {@linkcode putFunction} did. */
export type FunctionWrite = "created" | "published" | "unchanged";

/**
 * Brings a function to the spec and publishes it to LIVE: creates it (tagged) when missing,
 * updates and publishes it when LIVE differs, and does nothing when LIVE already runs it.
 *
 * @param cf CloudFront client
 * @param spec the function wanted
 * @param tags tags for a function created here
 * @returns what was done and the function's ARN
 */
export async function putFunction(
  cf: CloudFrontClient,
  spec: RewriteFunctionSpec,
  tags: Readonly<Record<string, string>>,
): Promise<{ write: FunctionWrite; arn: string }> {
  const development = await readFunctionStage(cf, spec.name, "DEVELOPMENT");
  if (!development) {
    let created;
    try {
      created = await cf.send(
        new CreateFunctionCommand({
          Name: spec.name,
          FunctionConfig: functionConfig(spec),
          FunctionCode: new TextEncoder().encode(spec.code),
          Tags: { Items: tagList(tags) },
        }),
      );
    } catch (err) {
      // Created between our read and our create (a crashed run's, or a racing one): update it.
      if (awsErrorCode(err) !== "FunctionAlreadyExists") {
        throw awsFailure(err, {
          resource: `CloudFront function ${spec.name}`,
          action: "cloudfront:CreateFunction",
        });
      }
      return await putFunction(cf, spec, tags);
    }
    await publish(cf, spec.name, created.ETag ?? "");
    return {
      write: "created",
      arn: created.FunctionSummary?.FunctionMetadata?.FunctionARN ?? "",
    };
  }
  const live = await readFunctionStage(cf, spec.name, "LIVE");
  if (rewriteFunctionDrift(live, spec).length === 0) {
    return { write: "unchanged", arn: development.arn };
  }
  await updateAndPublish(cf, spec, development.etag);
  return { write: "published", arn: development.arn };
}

/** The spec bootstrap keeps: this version's code around the rules the last deploy published. */
async function bootstrapSpec(ctx: NodeContext): Promise<RewriteFunctionSpec> {
  const name = rewriteFunctionName(ctx.facts);
  const live = await readFunctionStage(ctx.clients.cloudfront, name, "LIVE");
  const store = ctx.outputs.rulesStore?.arn;
  const preview = ctx.facts.preview;
  // A run that did not read the preview password (status) keeps the live router's check.
  const facts = preview && preview.auth === undefined
    ? {
      ...ctx.facts,
      preview: { ...preview, auth: live ? liveRouterAuth(live.code) ?? null : null },
    }
    : ctx.facts;
  return rewriteFunctionSpec(
    facts,
    live ? liveRulesSection(live.code) : "",
    typeof store === "string" && !ctx.facts.preview ? store : undefined,
  );
}

/** The rewrite function node. */
export const rewriteFunctionNode: ResourceNode = {
  id: "rewriteFunction",
  dependsOn: ["rulesStore"],
  wanted: () => true,
  label: (facts) => `CloudFront function ${rewriteFunctionName(facts)}`,
  async read(ctx) {
    const name = rewriteFunctionName(ctx.facts);
    const cf = ctx.clients.cloudfront;
    const development = await readFunctionStage(cf, name, "DEVELOPMENT");
    if (!development) return null;
    const live = await readFunctionStage(cf, name, "LIVE");
    return {
      outputs: { name, arn: development.arn },
      drift: rewriteFunctionDrift(live, await bootstrapSpec(ctx)),
    };
  },
  async create(ctx) {
    const spec = await bootstrapSpec(ctx);
    const { arn } = await putFunction(ctx.clients.cloudfront, spec, ctx.facts.tags);
    return { name: spec.name, arn };
  },
  async update(ctx) {
    return await rewriteFunctionNode.create(ctx);
  },
  async delete(ctx, live) {
    // Runs after the distribution is gone (reverse order): CloudFront refuses to delete a
    // function a distribution still uses (`FunctionInUse`).
    const name = String(live.outputs.name);
    const cf = ctx.clients.cloudfront;
    // DescribeFunction wants the stage (API reference: "you must provide the function's name
    // and stage"; ministack refuses a request without it); DeleteFunction's If-Match is the
    // DEVELOPMENT stage's ETag.
    const described = await awsMaybe(
      { resource: `CloudFront function ${name}`, action: "cloudfront:DescribeFunction" },
      () => cf.send(new DescribeFunctionCommand({ Name: name, Stage: "DEVELOPMENT" })),
      NO_SUCH_FUNCTION,
    );
    if (!described) return;
    await awsMaybe(
      { resource: `CloudFront function ${name}`, action: "cloudfront:DeleteFunction" },
      () => cf.send(new DeleteFunctionCommand({ Name: name, IfMatch: described.ETag })),
      NO_SUCH_FUNCTION,
    );
  },
};
