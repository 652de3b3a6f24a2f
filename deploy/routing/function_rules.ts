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
import { RULES_HEADER, STORE_IMPORT } from "../infra/nodes/rewrite_function.ts";
import {
  capturedNames,
  type HeaderRule,
  normaliseTarget,
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

/** Applying one matched rule, shared by the inline and the store-backed section. */
const RULE_APPLY = [
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
  "function ruleApply(rule, m, request) {",
  "  var caps = {};",
  "  for (var j = 0; j < rule.names.length; j++) caps[rule.names[j]] = m[j + 1] || '';",
  `  var to = rule.to.replace(/${PLACEHOLDER_USE.source}/g, function (all, name) {`,
  "    return Object.prototype.hasOwnProperty.call(caps, name) ? caps[name] : all;",
  "  });",
  "  if (rule.status === 200 || rule.status === 404) {",
  "    request.uri = to;",
  `    if (rule.status === 404) request.headers[${js(NOT_FOUND_MARK)}] = { value: '1' };`,
  "    return undefined;",
  "  }",
  "  var query = ruleQuery(request.querystring);",
  "  if (query) to += (to.indexOf('?') === -1 ? '?' : '&') + query;",
  "  return { statusCode: rule.status, statusDescription: 'Redirect',",
  "    headers: { location: { value: to } } };",
  "}",
];

/** One rule as the generated code's tables hold it: `[source, names, to, status, force]`. */
function ruleRow(r: RedirectRule): string {
  return `[${js(patternSource(r.from))},${js(capturedNames(r.from))},${
    js(normaliseTarget(r.to))
  },${r.status},${r.force ? 1 : 0}]`;
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
  const exists: Record<string, 1> = {};
  for (const path of existing) exists[path] = 1;
  return [
    `${RULES_HEADER} (routing/function_rules.ts), first match wins.`,
    `var RULES = [${rules.map(ruleRow).join(",\n")}].map(function (r) {`,
    "  return { re: new RegExp(r[0]), names: r[1], to: r[2], status: r[3], force: r[4] };",
    "});",
    `var EXISTS = ${js(exists)};`,
    ...RULE_APPLY,
    "function applyRules(request) {",
    "  var uri = request.uri;",
    "  for (var i = 0; i < RULES.length; i++) {",
    "    var rule = RULES[i];",
    "    var m = rule.re.exec(uri);",
    "    if (!m || (!rule.force && EXISTS[uri])) continue;",
    "    return ruleApply(rule, m, request);",
    "  }",
    "  return undefined;",
    "}",
    "",
  ].join("\n");
}

/**
 * The store-backed rules section (pure): the same `applyRules(request)`, asynchronous, reading
 * the rules that may match a URI from the site's KeyValueStore ({@linkcode storeEntries} says
 * what it holds): the rules for the exact path, then those under each of its directories, in
 * their order. It stays a few hundred bytes whatever the number of rules.
 *
 * @returns the JavaScript
 */
export function storeRulesSection(): string {
  return [
    STORE_IMPORT,
    `${RULES_HEADER}, looked up in the site's KeyValueStore (routing/function_rules.ts).`,
    "var KVS = cf.kvs();",
    // A missing key is an error (get) by the KeyValueStore helper methods' contract.
    "async function ruleValue(key) {",
    "  try { return JSON.parse(await KVS.get(key)); } catch (e) { return null; }",
    "}",
    "function ruleKeys(uri) {",
    "  var exact = uri.length > 1 && uri.endsWith('/') ? uri.slice(0, -1) : uri;",
    "  var keys = ['=' + exact, '~/'];",
    "  var parts = exact.split('/');",
    "  var dir = '/';",
    "  for (var i = 1; i < parts.length; i++) {",
    "    if (parts[i] === '') continue;",
    "    dir += parts[i] + '/';",
    "    keys.push('~' + dir);",
    "  }",
    "  return keys;",
    "}",
    ...RULE_APPLY,
    // Sequential awaits: the helper docs warn that promise combinators cost function memory.
    "async function applyRules(request) {",
    "  var uri = request.uri;",
    "  var keys = ruleKeys(uri);",
    "  var found = [];",
    "  for (var k = 0; k < keys.length; k++) {",
    "    var v = await ruleValue(keys[k]);",
    "    if (!v) continue;",
    "    found = found.concat(v.r);",
    "    for (var p = 1; p <= (v.n || 0); p++) {",
    "      var more = await ruleValue(keys[k] + '#' + p);",
    "      if (more) found = found.concat(more.r);",
    "    }",
    "  }",
    "  found.sort(function (a, b) { return a[0] - b[0]; });",
    "  var shadowed;",
    "  for (var i = 0; i < found.length; i++) {",
    "    var r = found[i];",
    "    var rule = { re: new RegExp(r[1]), names: r[2], to: r[3], status: r[4], force: r[5] };",
    "    var m = rule.re.exec(uri);",
    "    if (!m) continue;",
    "    if (!rule.force) {",
    "      if (shadowed === undefined) shadowed = (await ruleValue('!' + uri)) === 1;",
    "      if (shadowed) continue;",
    "    }",
    "    return ruleApply(rule, m, request);",
    "  }",
    "  return undefined;",
    "}",
    "",
  ].join("\n");
}

/** CloudFront KeyValueStore limits: a key's and a value's size, in bytes. */
export const STORE_KEY_LIMIT = 512;
/** The largest value a KeyValueStore key may hold, in bytes. */
export const STORE_VALUE_LIMIT = 1024;

const bytes = (text: string) => new TextEncoder().encode(text).byteLength;

/**
 * The key a rule is filed under (pure): `=<path>` for a pattern without placeholders or splat
 * (its trailing `/` dropped, as the function drops the URI's), else `~<dir>/` for the literal
 * directories before its first placeholder or splat. A key past the store's limit falls back
 * to `~/`, which every request reads.
 *
 * @param from the rule's `from`
 * @returns the key
 */
export function storeKeyOf(from: string): string {
  const splat = from.endsWith("*");
  const body = splat ? from.slice(0, -1) : from;
  const segments = body.split("/").slice(1);
  const literal: string[] = [];
  for (const segment of segments) {
    if (PLACEHOLDER_SEGMENT.test(segment)) break;
    literal.push(segment);
  }
  const key = !splat && literal.length === segments.length
    ? `=${body.length > 1 && body.endsWith("/") ? body.slice(0, -1) : body}`
    : `~/${literal.filter((s) => s !== "").map((s) => `${s}/`).join("")}`;
  return bytes(key) <= STORE_KEY_LIMIT ? key : "~/";
}

/**
 * What the site's KeyValueStore holds for the rules (pure): under each key
 * ({@linkcode storeKeyOf}) the rules filed there as `[index, source, names, to, status,
 * force]`, `{"r": [...], "n": <continuations>}`, spilling into `<key>#1`, `<key>#2`… past the
 * 1 KB value limit; and `!<path>` → `1` for each path rules without `force` leave alone.
 *
 * @param rules the redirect rules, in order
 * @param existing the paths rules without `force` leave alone ({@linkcode shadowedPaths})
 * @returns the entries, by key
 * @throws {RangeError} naming the rule or path that cannot fit a key or value
 */
export function storeEntries(
  rules: readonly RedirectRule[],
  existing: readonly string[],
): Map<string, string> {
  const byKey = new Map<string, string[]>();
  rules.forEach((r, i) => {
    const key = storeKeyOf(r.from);
    const row = `[${i},${ruleRow(r).slice(1)}`;
    if (bytes(`{"n":999,"r":[${row}]}`) > STORE_VALUE_LIMIT) {
      throw new RangeError(`the rule from ${r.from} is over the store's 1 KB value limit`);
    }
    byKey.set(key, [...(byKey.get(key) ?? []), row]);
  });
  const entries = new Map<string, string>();
  for (const [key, rows] of byKey) {
    const parts: string[][] = [[]];
    for (const row of rows) {
      const last = parts[parts.length - 1]!;
      // Room for the continuation count on the first part, whatever it becomes.
      if (
        last.length > 0 && bytes(`{"n":999,"r":[${[...last, row].join(",")}]}`) > STORE_VALUE_LIMIT
      ) {
        parts.push([row]);
      } else {
        last.push(row);
      }
    }
    parts.forEach((part, p) => {
      const value = p === 0 && parts.length > 1
        ? `{"n":${parts.length - 1},"r":[${part.join(",")}]}`
        : `{"r":[${part.join(",")}]}`;
      entries.set(p === 0 ? key : `${key}#${p}`, value);
    });
  }
  for (const path of existing) {
    if (bytes(`!${path}`) > STORE_KEY_LIMIT) {
      throw new RangeError(`the path ${path} is over the store's 512-byte key limit`);
    }
    entries.set(`!${path}`, "1");
  }
  return entries;
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
