/**
 * The redirect and rewrite rules as JavaScript for the site's viewer-request CloudFront
 * Function (cloudfront-js-2.0), and the per-path headers as a viewer-response function.
 *
 * The rules section is separate text the rewrite function includes before its own code, and
 * its handler calls `applyRules(request)` first: redirects and rewrites run before the index
 * rewrite and the SPA fallback. A rule without `force` is skipped when a file is served at the
 * requested path; the function cannot ask S3, so the deploy passes the paths of the build
 * that such rules match (`EXISTS`).
 *
 * @module
 */
import {
  capturedNames,
  type HeaderRule,
  PLACEHOLDER_SEGMENT,
  PLACEHOLDER_USE,
  type RedirectRule,
} from "../config/route_rules.ts";

/** The request header a 404 rule sets so the viewer-response function answers 404. */
export const NOT_FOUND_MARK = "x-deploy-not-found";

/**
 * A pattern's regular expression source: `:name` segments capture one segment, a trailing `*`
 * captures the rest (and `/x/*` also matches `/x`), everything else is literal. A trailing
 * `/` on a path without `*` is optional.
 *
 * @param pattern a `from` or `for` pattern (already checked)
 * @returns the regular expression source, anchored
 */
export function patternSource(pattern: string): string {
  const splat = pattern.endsWith("*");
  let body = splat ? pattern.slice(0, -1) : pattern;
  if (splat && body.endsWith("/")) body = body.slice(0, -1);
  else if (!splat && body.length > 1 && body.endsWith("/")) body = body.slice(0, -1);
  const source = body.split("/").map((segment) =>
    PLACEHOLDER_SEGMENT.test(segment) ? "([^/]+)" : segment.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")
  ).join("\\/");
  if (splat) return `^${source}(?:\\/(.*))?$`;
  return `^${source}\\/?$`;
}

/** Text safe inside a generated script: JSON with U+2028/U+2029 escaped. */
function js(value: unknown): string {
  return JSON.stringify(value).replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029");
}

/**
 * The paths of the build a rule without `force` must leave alone (pure): every URL a file is
 * served at (`a/b.html` → `/a/b.html`; `a/index.html` also → `/a/` and `/a`) that some such
 * rule matches.
 *
 * @param rules the redirect rules
 * @param keys the build's file keys (site-relative)
 * @param indexDocument `defaultRootObject`
 * @returns the paths, sorted
 */
export function shadowedPaths(
  rules: readonly RedirectRule[],
  keys: readonly string[],
  indexDocument: string,
): string[] {
  const patterns = rules.filter((r) => !r.force).map((r) => new RegExp(patternSource(r.from)));
  if (patterns.length === 0) return [];
  const urls = new Set<string>();
  for (const key of keys) {
    urls.add(`/${key}`);
    if (key === indexDocument || key.endsWith(`/${indexDocument}`)) {
      const dir = `/${key.slice(0, -indexDocument.length)}`;
      urls.add(dir);
      if (dir !== "/") urls.add(dir.slice(0, -1));
    }
  }
  return [...urls].filter((u) => patterns.some((p) => p.test(u))).sort();
}

/**
 * The viewer-request rules section (pure): `RULES`, `EXISTS` and `applyRules(request)`, which
 * returns a redirect response, or changes `request.uri` for a 200/404 rule and returns
 * undefined, or does nothing. Empty text when there are no rules.
 *
 * @param rules the redirect rules, in order (first match wins)
 * @param existing the paths rules without `force` leave alone ({@linkcode shadowedPaths})
 * @returns the JavaScript
 */
export function rulesSection(
  rules: readonly RedirectRule[],
  existing: readonly string[],
): string {
  if (rules.length === 0) return "";
  const table = rules.map((r) =>
    `[${js(patternSource(r.from))},${js(capturedNames(r.from))},${js(r.to)},${r.status},${
      r.force ? 1 : 0
    }]`
  );
  const exists: Record<string, 1> = {};
  for (const path of existing) exists[path] = 1;
  return [
    "// deploy: redirect and rewrite rules (routing/function_rules.ts), first match wins.",
    `var RULES = [${table.join(",\n")}].map(function (r) {`,
    "  return { re: new RegExp(r[0]), names: r[1], to: r[2], status: r[3], force: r[4] };",
    "});",
    `var EXISTS = ${js(exists)};`,
    "function ruleQuery(qs) {",
    "  var out = [];",
    "  for (var k in qs) {",
    "    var vs = qs[k].multiValue || [qs[k]];",
    "    for (var i = 0; i < vs.length; i++) {",
    "      out.push(vs[i].value === '' ? k : k + '=' + vs[i].value);",
    "    }",
    "  }",
    "  return out.join('&');",
    "}",
    "function applyRules(request) {",
    "  var uri = request.uri;",
    "  for (var i = 0; i < RULES.length; i++) {",
    "    var rule = RULES[i];",
    "    var m = rule.re.exec(uri);",
    "    if (!m || (!rule.force && EXISTS[uri])) continue;",
    "    var caps = {};",
    "    for (var j = 0; j < rule.names.length; j++) caps[rule.names[j]] = m[j + 1] || '';",
    `    var to = rule.to.replace(/${PLACEHOLDER_USE.source}/g, function (all, name) {`,
    "      return Object.prototype.hasOwnProperty.call(caps, name) ? caps[name] : all;",
    "    });",
    "    if (rule.status === 200 || rule.status === 404) {",
    "      request.uri = to;",
    `      if (rule.status === 404) request.headers[${js(NOT_FOUND_MARK)}] = { value: '1' };`,
    "      return undefined;",
    "    }",
    "    var query = ruleQuery(request.querystring);",
    "    if (query) to += (to.indexOf('?') === -1 ? '?' : '&') + query;",
    "    return { statusCode: rule.status, statusDescription: 'Redirect',",
    "      headers: { location: { value: to } } };",
    "  }",
    "  return undefined;",
    "}",
    "",
  ].join("\n");
}

/**
 * The viewer-response function (pure, cloudfront-js-2.0): adds every matching header rule's
 * values (later rules win a name), and answers 404 for a request a 404 rule rewrote.
 *
 * @param rules the header rules, in order
 * @returns the JavaScript
 */
export function headersFunctionCode(rules: readonly HeaderRule[]): string {
  const table = rules.map((r) => {
    const values: Record<string, string> = {};
    for (const [name, value] of Object.entries(r.values)) values[name.toLowerCase()] = value;
    return `[${js(patternSource(r.for))},${js(values)}]`;
  });
  return [
    "// deploy: response headers by path and 404 rules (routing/function_rules.ts).",
    `var HEADERS = [${table.join(",\n")}].map(function (r) {`,
    "  return { re: new RegExp(r[0]), values: r[1] };",
    "});",
    "function handler(event) {",
    "  var request = event.request;",
    "  var response = event.response;",
    `  if (request.headers[${js(NOT_FOUND_MARK)}]) {`,
    "    response.statusCode = 404;",
    "    response.statusDescription = 'Not Found';",
    "  }",
    "  for (var i = 0; i < HEADERS.length; i++) {",
    "    if (!HEADERS[i].re.test(request.uri)) continue;",
    "    for (var name in HEADERS[i].values) {",
    "      response.headers[name] = { value: HEADERS[i].values[name] };",
    "    }",
    "  }",
    "  return response;",
    "}",
    "",
  ].join("\n");
}
