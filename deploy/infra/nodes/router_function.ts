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

/** A string as a JavaScript literal safe for any parser (U+2028/U+2029 escaped). */
function literal(text: string): string {
  return JSON.stringify(text).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/**
 * The function's JavaScript (pure): a `cloudfront-js-2.0` viewer-request handler in plain ES5
 * plus `endsWith`, so the same text runs in CloudFront and, for the tests, in Deno.
 *
 * @param domain the preview base domain (`preview.example.com`)
 * @param indexDocument the index object for directory URLs (`defaultRootObject`)
 * @returns the source code
 *
 * @example
 * ```ts
 * previewRouterCode("preview.example.com", "index.html"); // "// deploy: preview router …"
 * ```
 */
export function previewRouterCode(domain: string, indexDocument: string): string {
  return [
    `// deploy: preview router. <id>.DOMAIN/<path> -> /${PREVIEWS_PREFIX}<id>/${PREVIEW_SITE_FOLDER}/<path>;`,
    "// /dir/ and /dir (no dot in the last segment) -> /dir/INDEX.",
    `var SUFFIX = ${literal(`.${normalizeDomain(domain)}`)};`,
    `var INDEX = ${literal(indexDocument)};`,
    `var ID = /${PREVIEW_ID_PATTERN.source}/;`,
    `var MAX_ID = ${MAX_PREVIEW_ID};`,
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
