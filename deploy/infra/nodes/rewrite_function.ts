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
import { previewRouterCode } from "./router_function.ts";

/** The CloudFront Functions runtime the code is written for. */
export const REWRITE_RUNTIME: FunctionRuntime = "cloudfront-js-2.0";

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
  // JSON.stringify leaves U+2028/U+2029 raw, which older JavaScript parsers reject.
  const index = `var INDEX = ${
    JSON.stringify(indexDocument).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")
  };`;
  const ruled = rules === ""
    ? []
    : ["  var ruled = applyRules(request);", "  if (ruled) return ruled;"];
  const body = spa
    ? [
      "// deploy: single-page app. No dot in the last segment -> /INDEX (the app shell);",
      "// a file (/a.js) passes through, so a missing one is a 404, not the shell.",
      index,
      "function handler(event) {",
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
      "// deploy: pretty URLs. /dir/ and /dir (no dot in the last segment) -> /dir/INDEX.",
      index,
      "function handler(event) {",
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
}

/**
 * The function's desired description for a site (pure): the pretty-URL rewrite, or for the
 * preview stack the router that also picks the preview from the host name.
 *
 * @param facts the site
 * @returns name, code, runtime and comment
 */
export function rewriteFunctionSpec(facts: SiteFacts): RewriteFunctionSpec {
  if (facts.preview) {
    return {
      name: rewriteFunctionName(facts),
      code: previewRouterCode(facts.preview.domain, facts.config.defaultRootObject),
      runtime: REWRITE_RUNTIME,
      comment: `deploy ${facts.bucket}: <id>.${facts.preview.domain} to previews/<id>/site`,
    };
  }
  return {
    name: rewriteFunctionName(facts),
    code: rewriteFunctionCode(facts.config.defaultRootObject, facts.config.spa),
    runtime: REWRITE_RUNTIME,
    comment: facts.config.spa
      ? `deploy ${facts.bucket}: client routes to /${facts.config.defaultRootObject}`
      : `deploy ${facts.bucket}: directory URLs to ${facts.config.defaultRootObject}`,
  };
}

/** A stage as read live: its runtime and code, and its ETag. */
interface LiveStage {
  arn: string;
  runtime: string;
  code: string;
  etag: string;
}

async function readStage(
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
  return {
    arn: described.FunctionSummary.FunctionMetadata?.FunctionARN ?? "",
    runtime: described.FunctionSummary.FunctionConfig?.Runtime ?? "",
    code: new TextDecoder().decode(got.FunctionCode ?? new Uint8Array()),
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
  live: { runtime: string; code: string } | undefined,
  spec: RewriteFunctionSpec,
): string[] {
  if (!live) return ["not published to LIVE"];
  const drift: string[] = [];
  if (live.runtime !== spec.runtime) drift.push(`runtime ${live.runtime}, want ${spec.runtime}`);
  if (live.code !== spec.code) drift.push("code differs from this version's rewrite rules");
  return drift;
}

/** Writes the spec to DEVELOPMENT (`If-Match` its ETag) and publishes it to LIVE. */
async function updateAndPublish(ctx: NodeContext, etag: string): Promise<void> {
  const spec = rewriteFunctionSpec(ctx.facts);
  const cf = ctx.clients.cloudfront;
  const resource = `CloudFront function ${spec.name}`;
  const updated = await aws({ resource, action: "cloudfront:UpdateFunction" }, () =>
    cf.send(
      new UpdateFunctionCommand({
        Name: spec.name,
        IfMatch: etag,
        FunctionConfig: { Comment: spec.comment, Runtime: spec.runtime },
        FunctionCode: new TextEncoder().encode(spec.code),
      }),
    ));
  // The SDK reads the new ETag from the `ETtag` header the API reference names; an endpoint
  // that answers `ETag` only (ministack) leaves it unset, and the ETag we sent is stale now.
  const next = updated.ETag ?? (await readStage(cf, spec.name, "DEVELOPMENT"))?.etag ?? etag;
  await publish(ctx, spec.name, next);
}

async function publish(ctx: NodeContext, name: string, etag: string): Promise<void> {
  await aws(
    { resource: `CloudFront function ${name}`, action: "cloudfront:PublishFunction" },
    () => ctx.clients.cloudfront.send(new PublishFunctionCommand({ Name: name, IfMatch: etag })),
  );
}

/** The rewrite function node. */
export const rewriteFunctionNode: ResourceNode = {
  id: "rewriteFunction",
  dependsOn: [],
  wanted: () => true,
  label: (facts) => `CloudFront function ${rewriteFunctionName(facts)}`,
  async read(ctx) {
    const spec = rewriteFunctionSpec(ctx.facts);
    const cf = ctx.clients.cloudfront;
    const development = await readStage(cf, spec.name, "DEVELOPMENT");
    if (!development) return null;
    const live = await readStage(cf, spec.name, "LIVE");
    return {
      outputs: { name: spec.name, arn: development.arn },
      drift: rewriteFunctionDrift(live, spec),
    };
  },
  async create(ctx) {
    const spec = rewriteFunctionSpec(ctx.facts);
    const cf = ctx.clients.cloudfront;
    let created;
    try {
      created = await cf.send(
        new CreateFunctionCommand({
          Name: spec.name,
          FunctionConfig: { Comment: spec.comment, Runtime: spec.runtime },
          FunctionCode: new TextEncoder().encode(spec.code),
          Tags: { Items: tagList(ctx.facts.tags) },
        }),
      );
    } catch (err) {
      const development = awsErrorCode(err) === "FunctionAlreadyExists"
        ? await readStage(cf, spec.name, "DEVELOPMENT")
        : undefined;
      if (!development) {
        throw awsFailure(err, {
          resource: `CloudFront function ${spec.name}`,
          action: "cloudfront:CreateFunction",
        });
      }
      // Created by a run that crashed before recording (or publishing) it: adopt it.
      await updateAndPublish(ctx, development.etag);
      return { name: spec.name, arn: development.arn };
    }
    await publish(ctx, spec.name, created.ETag ?? "");
    return { name: spec.name, arn: created.FunctionSummary?.FunctionMetadata?.FunctionARN ?? "" };
  },
  async update(ctx, live) {
    const name = String(live.outputs.name);
    const development = await readStage(ctx.clients.cloudfront, name, "DEVELOPMENT");
    if (!development) return await rewriteFunctionNode.create(ctx);
    await updateAndPublish(ctx, development.etag);
    return { name, arn: development.arn };
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
