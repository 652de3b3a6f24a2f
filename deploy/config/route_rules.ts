/**
 * Redirect, rewrite and header rules as the site states them (config `redirects` and
 * `headers`, or Netlify's `_redirects` and `_headers` files), and the checks a single field's
 * schema cannot make: placeholders `to` uses that `from` lacks, targets leaving the site root,
 * proxying, and header names CloudFront will not let a function or policy set.
 *
 * @module
 */
import type { ConfigIssue } from "@org/shared";

/** The statuses a redirect rule may have: redirects, a rewrite (200) or a not-found (404). */
export const REDIRECT_STATUSES = [200, 301, 302, 307, 308, 404] as const;

/** A redirect rule's status. */
export type RedirectStatus = typeof REDIRECT_STATUSES[number];

/** One redirect or rewrite rule. */
export interface RedirectRule {
  /** A path; `:name` segments capture one segment, a trailing `*` captures the rest. */
  from: string;
  /** A path or absolute URL; may use `:name` and `:splat`. */
  to: string;
  /** 301/302/307/308 redirect; 200 serves `to` under the same URL; 404 serves it as not-found. */
  status: RedirectStatus;
  /** Applies even when a file exists at `from`. */
  force: boolean;
}

/** Headers added to every response whose path matches `for`. */
export interface HeaderRule {
  /** A path pattern like `from` (placeholders and a trailing `*`). */
  for: string;
  /** Header names to values. */
  values: Record<string, string>;
}

/** The most rules of one kind a site may state (config and files together). */
export const MAX_RULES = 2000;

/** The longest `from`, `to`, `for` or header value accepted, in characters. */
export const MAX_RULE_TEXT = 2048;

/** {@linkcode PATH_PATTERN_REGEX} as users read it. */
export const PATH_PATTERN_RULE =
  "be a path starting with / without spaces, control characters, ? or #, and * only at the end";

/**
 * A path pattern: starts with `/`, no whitespace, control characters, `?` or `#`, and `*` only
 * as the last character.
 */
export const PATH_PATTERN_REGEX = "^/[^\\u0000-\\u0020\\u007f?#*]*\\*?$";

/** A redirect target: a path or an http(s) URL, without whitespace or control characters. */
export const TARGET_REGEX = "^(?:/|https?://)[^\\u0000-\\u0020\\u007f]*$";

/** An HTTP field name (RFC 9110 §5.1: a token). */
export const HEADER_NAME_REGEX = "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$";

/** A header value without control characters (a horizontal tab is allowed, RFC 9110 §5.5). */
export const HEADER_VALUE_REGEX = "^[^\\u0000-\\u0008\\u000a-\\u001f\\u007f]*$";

/** Hop-by-hop headers (RFC 9110 §7.6.1): they describe one connection, never a page. */
const HOP_BY_HOP = [
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
];

/**
 * Headers CloudFront does not let an edge function or a response headers policy set: the
 * disallowed and the viewer-response read-only headers of "Restrictions on all edge functions"
 * (CloudFront Developer Guide), exact names and `prefix*` families.
 */
const CLOUDFRONT_RESERVED = [
  "content-encoding",
  "content-length",
  "expect",
  "host",
  "via",
  "warning",
  "x-accel-*",
  "x-amz-cf-*",
  "x-amzn-*",
  "x-cache",
  "x-edge-*",
  "x-forwarded-proto",
  "x-real-ip",
];

/**
 * Why a header name may not be set by a rule, or undefined when it may.
 *
 * @param name the header name as written
 * @returns the reason, phrased to follow "must not be"
 */
export function reservedHeader(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (HOP_BY_HOP.includes(lower)) return "a hop-by-hop header";
  const hit = CLOUDFRONT_RESERVED.some((r) =>
    r.endsWith("*") ? lower.startsWith(r.slice(0, -1)) : lower === r
  );
  return hit ? "a header CloudFront reserves" : undefined;
}

/** A placeholder used in a target: `:name` (a port such as `:8080` is not one). */
export const PLACEHOLDER_USE = /:([A-Za-z_][A-Za-z0-9_]*)/;

/** A path segment that is a placeholder: `:name`. */
export const PLACEHOLDER_SEGMENT = /^:[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * The placeholder names a pattern captures, in the order its groups capture them: its `:name`
 * segments, then `splat` for a trailing `*`.
 *
 * @param from the pattern
 * @returns the names
 */
export function capturedNames(from: string): string[] {
  const names = from.split("/").filter((s) => PLACEHOLDER_SEGMENT.test(s)).map((s) => s.slice(1));
  return from.endsWith("*") ? [...names, "splat"] : names;
}

/**
 * The placeholder names a target uses (`:name` followed by a letter or `_`; a port such as
 * `:8080` is not one).
 *
 * @param to the target
 * @returns the names, in order
 */
export function usedNames(to: string): string[] {
  return [...to.matchAll(new RegExp(PLACEHOLDER_USE, "g"))].map((m) => m[1]!);
}

/** Separators a server or CDN along the way may read as `/`: encoded slashes and backslashes. */
const LOOSE_SEPARATOR = /\/|\\|%2f|%5c/i;

/** A segment's text with its percent-escapes decoded, or as written when they do not decode. */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The path a target leads to on the site itself: the target when it is a path, the path part
 * of an absolute URL naming one of the site's own hosts, else undefined (another site). The
 * query and fragment are left off.
 *
 * @param to the target as written
 * @param ownHosts the site's own host names (its domain), lower case
 * @returns the path as written, or undefined
 */
export function siteTargetPath(to: string, ownHosts: readonly string[]): string | undefined {
  const absolute = /^https?:\/\/([^/?#]*)([^?#]*)/i.exec(to);
  if (absolute) {
    const host = absolute[1]!.replace(/^.*@/, "").replace(/:\d*$/, "").replace(/\.$/, "");
    return ownHosts.includes(host.toLowerCase()) ? absolute[2] || "/" : undefined;
  }
  return /^[^?#]*/.exec(to)![0];
}

/**
 * Whether a site path climbs above the site root once its dot segments are resolved, reading
 * `%2e` as `.` and an encoded slash or a backslash as `/` (what some server along the way may
 * do), so no spelling of `..` gets past the check.
 *
 * @param path a path starting with `/`
 * @returns true when some `..` would leave the root
 */
export function leavesSiteRoot(path: string): boolean {
  let depth = 0;
  for (const raw of path.split(LOOSE_SEPARATOR).slice(1)) {
    const segment = decodedSegment(raw);
    if (segment === "..") {
      if (depth === 0) return true;
      depth--;
    } else if (segment !== "." && segment !== "") depth++;
  }
  return false;
}

/**
 * A path target with its dot segments resolved (RFC 3986 §5.2.4, `%2e` read as `.`), so the
 * edge function rewrites to the file the rule names; other targets are returned unchanged.
 * Targets that would leave the root never get here ({@linkcode redirectIssues} refuses them).
 *
 * @param to the target as written
 * @returns the target to serve
 *
 * @example
 * ```ts
 * normaliseTarget("/docs/./old/../guide?x=1"); // "/docs/guide?x=1"
 * ```
 */
export function normaliseTarget(to: string): string {
  if (!to.startsWith("/")) return to;
  const path = /^[^?#]*/.exec(to)![0];
  const rest = to.slice(path.length);
  const out: string[] = [];
  const segments = path.split("/").slice(1);
  segments.forEach((raw, i) => {
    const segment = decodedSegment(raw);
    const last = i === segments.length - 1;
    if (segment === "..") out.pop();
    if (segment === "." || segment === "..") {
      if (last) out.push("");
      return;
    }
    out.push(raw);
  });
  return `/${out.join("/")}${rest}`;
}

/**
 * The problems of redirect rules that one field's check cannot see. Runs on rules as written,
 * so a rule whose other fields are wrong is still checked (every problem at once); fields that
 * are not strings are left to their own checks.
 *
 * @param rules the rules as written
 * @param where the path of rule `i` (a key path, or a file and line)
 * @param ownHosts the site's own host names (lower case): an absolute target naming one is
 *   checked like a path
 * @returns one issue per problem
 */
export function redirectIssues(
  rules: readonly Partial<Record<keyof RedirectRule, unknown>>[],
  where: (i: number) => string,
  ownHosts: readonly string[] = [],
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  rules.forEach(({ from, to, status }, i) => {
    if (typeof to === "string") {
      // Independent of the bucket policy: a rule may only ever name the site's own files.
      const path = siteTargetPath(to, ownHosts);
      if (path !== undefined && leavesSiteRoot(path)) {
        issues.push({
          path: `${where(i)}.to`,
          message: `must stay inside the site root: "${to}" climbs above / once its dot ` +
            `segments (.., %2e%2e) are resolved`,
        });
      }
    }
    if (typeof from !== "string" || typeof to !== "string") return;
    const captured = capturedNames(from);
    for (const name of usedNames(to)) {
      if (!captured.includes(name)) {
        issues.push({
          path: `${where(i)}.to`,
          message: name === "splat"
            ? `uses :splat but "from" has no trailing *`
            : `uses :${name} but "from" has no :${name} segment`,
        });
      }
    }
    if (!to.startsWith("/") && (status === 200 || status === 404)) {
      issues.push({
        path: `${where(i)}.to`,
        message: `must be a path for status ${status} (proxying to another origin is ` +
          `not supported; use a 301/302/307/308 redirect)`,
      });
    }
  });
  return issues;
}

/**
 * The problems of header rules that one field's check cannot see: reserved names. Runs on
 * rules as written, like {@linkcode redirectIssues}.
 *
 * @param rules the rules as written
 * @param where the path of rule `i`
 * @returns one issue per problem
 */
export function headerIssues(
  rules: readonly Partial<Record<keyof HeaderRule, unknown>>[],
  where: (i: number) => string,
): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  rules.forEach(({ values }, i) => {
    if (typeof values !== "object" || values === null) return;
    for (const name of Object.keys(values)) {
      const why = reservedHeader(name);
      if (why) issues.push({ path: `${where(i)}.values.${name}`, message: `must not be ${why}` });
    }
  });
  return issues;
}
