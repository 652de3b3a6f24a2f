/**
 * Names the AWS operation of a raw HTTP request, as the SDK sent it: the service from the
 * SigV4 credential scope, the operation from `X-Amz-Target` (JSON protocols), the `Action`
 * form field (query protocols) or, for REST protocols, the HTTP binding of the SDK's own
 * operation schemas (`new XxxCommand({}).schema`), so the table cannot drift from the SDK.
 *
 * @module
 */
import * as cloudfront from "@aws-sdk/client-cloudfront";
import * as cloudfrontKvs from "@aws-sdk/client-cloudfront-keyvaluestore";
import * as lambda from "@aws-sdk/client-lambda";
import * as microvms from "@aws-sdk/client-lambda-microvms";
import * as route53 from "@aws-sdk/client-route-53";
import * as s3 from "@aws-sdk/client-s3";
import * as s3tables from "@aws-sdk/client-s3tables";

/** One REST binding: method, path pattern and the query keys (and values) it requires. */
interface Binding {
  operation: string;
  method: string;
  path: RegExp;
  query: [string, string | undefined][];
  /** Literal characters and query requirements: the most specific binding wins. */
  score: number;
}

/** REST services by SigV4 signing name; S3 addresses path-style (`/bucket/key`). */
const REST_PACKAGES: Record<string, Record<string, unknown>> = {
  cloudfront,
  "cloudfront-keyvaluestore": cloudfrontKvs,
  lambda,
  "lambda-microvms": microvms,
  route53,
  s3,
  s3tables,
};

const bindings = new Map<string, Binding[]>();

function restBindings(service: string): Binding[] {
  let list = bindings.get(service);
  if (list) return list;
  list = [];
  for (const [name, value] of Object.entries(REST_PACKAGES[service] ?? {})) {
    if (!name.endsWith("Command") || typeof value !== "function") continue;
    const schema = (new (value as new (input: object) => { schema?: unknown })({})).schema;
    if (!Array.isArray(schema) || schema[0] !== 9) continue;
    const http = (schema[3] as { http?: [string, string, number] }).http;
    if (!http) continue;
    const [method, uri] = http;
    const [path = "", query = ""] = uri.split("?");
    const literal = path.replace(/\{[^}]+\}/g, "");
    const pattern = path.split(/(\{[^}]+\})/).map((part) =>
      part.startsWith("{") ? (part.endsWith("+}") ? ".+" : "[^/]+") : escapeRegExp(part)
    ).join("");
    const required = query ? query.split("&").map((kv) => kv.split("=") as [string, string]) : [];
    list.push({
      operation: schema[2] as string,
      method,
      path: new RegExp(`^${pattern}$`),
      query: required.map(([k, v]) => [k, v]),
      score: literal.length + 100 * required.length,
    });
  }
  bindings.set(service, list);
  return list;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The signing name of a request (`s3`, `cloudfront`, `iam`, …), or `unknown`: the service of the
 * SigV4 credential scope (`key/date/region/service/aws4_request`), or of the SigV4a one, which
 * has no region (`key/date/service/aws4_request`, the KeyValueStore data plane).
 */
export function signingService(headers: Headers): string {
  const auth = headers.get("authorization") ?? "";
  return auth.match(/Credential=[^/]+\/[^/]+\/[^/]+\/([^/]+)\/aws4_request/)?.[1] ??
    auth.match(/Credential=[^/]+\/[^/]+\/([^/]+)\/aws4_request/)?.[1] ?? "unknown";
}

/**
 * The operation a request invokes.
 *
 * @param request method, URL and headers of the request
 * @param body its body (form fields carry the query protocols' `Action`)
 * @returns `{service, operation}`; `operation` is `METHOD path` when no binding matches
 */
export function operationOf(
  request: { method: string; url: string; headers: Headers },
  body: Uint8Array,
): { service: string; operation: string } {
  const service = signingService(request.headers);
  const target = request.headers.get("x-amz-target");
  if (target) return { service, operation: target.slice(target.lastIndexOf(".") + 1) };
  const url = new URL(request.url);
  const type = request.headers.get("content-type") ?? "";
  if (type.startsWith("application/x-www-form-urlencoded")) {
    const action = new URLSearchParams(new TextDecoder().decode(body)).get("Action");
    if (action) return { service, operation: action };
  }
  const action = url.searchParams.get("Action");
  if (action) return { service, operation: action };
  // Matched as sent (still percent-encoded): an ARN in one path segment keeps its `/` as %2F.
  let path = url.pathname;
  // Path-style S3: the first segment is the bucket, the SDK's templates start after it.
  if (service === "s3") path = path.replace(/^\/[^/]+/, "") || "/";
  const best = restBindings(service)
    .filter((b) =>
      b.method === request.method && b.path.test(path) &&
      b.query.every(([k, v]) => url.searchParams.has(k) && (!v || url.searchParams.get(k) === v))
    )
    .sort((a, b) => b.score - a.score)[0];
  return { service, operation: best?.operation ?? `${request.method} ${url.pathname}` };
}
