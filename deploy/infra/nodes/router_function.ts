/**
 * The CloudFront Function `preview-<siteName>-router`: one distribution serves every preview,
 * and this viewer-request function picks the preview from the host name.
 *
 * - The first DNS label of `Host` is the preview id: `pr-42.preview.example.com` → `pr-42`
 *   (compared in lower case, without a port or a trailing dot). A host that is not exactly one
 *   valid label under the preview domain is answered 404 by the function itself.
 * - Directory URLs get the index document, as the production rewrite function does: `/` →
 *   `/index.html`, `/blog/` → `/blog/index.html`, `/blog` (no `.` in the last segment) →
 *   `/blog/index.html`; `/app.js` is left alone.
 * - The URI becomes the preview's key: `/previews/<id>/site<uri>`. The distribution's origin
 *   has no origin path, so that is the S3 key CloudFront asks for.
 *
 * Because the function runs before the cache lookup, the cache key is the rewritten URI: one
 * preview's cached objects can never answer for another.
 *
 * @module
 */
import { PREVIEW_SITE_FOLDER, PREVIEWS_PREFIX } from "../../state/bucket_layout.ts";
import { MAX_PREVIEW_ID, normalizeDomain, PREVIEW_ID_PATTERN } from "../../config/names.ts";
import type { PreviewAuth } from "../resource.ts";

/** cloudfront-js-2.0's crypto module, for the password check. */
// Built in two parts: the agent bundle's import scanner reads this file's text.
export const CRYPTO_IMPORT = ["import crypto", "from 'crypto';"].join(" ");

/** The line holding the password check's salt and hash. */
const AUTH_LINE = /^var AUTH = (\{.*\});$/m;

/**
 * The password check a live router holds (pure), so a command that cannot read the password
 * (`status`) compares the rest without calling it drift.
 *
 * @param code the live router's code
 * @returns the check, or undefined when the router has none
 */
export function liveRouterAuth(code: string): PreviewAuth | undefined {
  const m = AUTH_LINE.exec(code);
  if (!m) return undefined;
  const parsed = JSON.parse(m[1]!) as Partial<PreviewAuth>;
  return typeof parsed.salt === "string" && typeof parsed.hash === "string"
    ? { salt: parsed.salt, hash: parsed.hash }
    : undefined;
}

/** A string as a JavaScript literal safe for any parser (U+2028/U+2029 escaped). */
function literal(text: string): string {
  return JSON.stringify(text).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/**
 * The function's JavaScript (pure): a `cloudfront-js-2.0` viewer-request handler in plain ES5
 * plus `endsWith`, so the same text runs in CloudFront and, for the tests, in Deno.
 *
 * With `auth`, a request for a valid preview host must carry `Authorization: Basic` with the
 * preview credentials (`preview/auth.ts`): the router hashes the token with the salt and compares
 * it with the stored hash, and answers anything else 401 with `WWW-Authenticate`.
 *
 * @param domain the preview base domain (`preview.example.com`)
 * @param indexDocument the index object for directory URLs (`defaultRootObject`)
 * @param auth the password check, when previews are private
 * @returns the source code
 *
 * @example
 * ```ts
 * previewRouterCode("preview.example.com", "index.html"); // "// deploy: preview router …"
 * ```
 */
export function previewRouterCode(
  domain: string,
  indexDocument: string,
  auth?: PreviewAuth,
): string {
  const check = auth
    ? [
      "  var given = request.headers.authorization ? request.headers.authorization.value : '';",
      "  var space = given.indexOf(' ');",
      "  var token = space === -1 ? '' : given.slice(space + 1).trim();",
      "  if (space === -1 || given.slice(0, space).toLowerCase() !== 'basic' ||",
      "      crypto.createHash('sha256').update(AUTH.salt + token).digest('hex') !== AUTH.hash) {",
      "    return { statusCode: 401, statusDescription: 'Unauthorized', headers: {",
      "      'www-authenticate': { value: 'Basic realm=\"preview\", charset=\"UTF-8\"' },",
      "      'cache-control': { value: 'no-store' } } };",
      "  }",
    ]
    : [];
  return [
    ...(auth ? [CRYPTO_IMPORT] : []),
    `// deploy: preview router. <id>.DOMAIN/<path> -> /${PREVIEWS_PREFIX}<id>/${PREVIEW_SITE_FOLDER}/<path>;`,
    "// /dir/ and /dir (no dot in the last segment) -> /dir/INDEX.",
    `var SUFFIX = ${literal(`.${normalizeDomain(domain)}`)};`,
    `var INDEX = ${literal(indexDocument)};`,
    `var ID = /${PREVIEW_ID_PATTERN.source}/;`,
    `var MAX_ID = ${MAX_PREVIEW_ID};`,
    ...(auth ? [`var AUTH = ${JSON.stringify({ salt: auth.salt, hash: auth.hash })};`] : []),
    "function handler(event) {",
    "  var request = event.request;",
    "  var host = request.headers.host ? request.headers.host.value.toLowerCase() : '';",
    "  var colon = host.indexOf(':');",
    "  if (colon !== -1) host = host.slice(0, colon);",
    "  if (host.endsWith('.')) host = host.slice(0, -1);",
    "  var id = host.endsWith(SUFFIX) ? host.slice(0, host.length - SUFFIX.length) : '';",
    "  if (id.length > MAX_ID || !ID.test(id)) {",
    "    return { statusCode: 404, statusDescription: 'Not Found' };",
    "  }",
    ...check,
    "  var uri = request.uri;",
    "  if (uri.endsWith('/')) {",
    "    uri = uri + INDEX;",
    "  } else if (uri.slice(uri.lastIndexOf('/') + 1).indexOf('.') === -1) {",
    "    uri = uri + '/' + INDEX;",
    "  }",
    `  request.uri = ${literal(`/${PREVIEWS_PREFIX}`)} + id + ${
      literal(`/${PREVIEW_SITE_FOLDER}`)
    } + uri;`,
    "  return request;",
    "}",
    "",
  ].join("\n");
}
