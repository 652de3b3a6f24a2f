/**
 * What CloudFront should run for one build's rules (pure): the viewer-request function's code
 * (redirects and rewrites, inline or looked up in the site's KeyValueStore), the store's
 * contents, the viewer-response function's code (per-path headers and 404 rules) and the
 * response headers policy's headers (site-wide values). The deploy compares this with what is
 * live and changes only what differs (`publish_routing.ts`).
 *
 * @module
 */
import type { HeaderRule, RedirectRule } from "../config/route_rules.ts";
import { DeployError } from "../errors.ts";
import { rewriteFunctionCode } from "../infra/nodes/rewrite_function.ts";
import {
  headersFunctionCode,
  rulesSection,
  shadowedPaths,
  storeEntries,
  storeRulesSection,
} from "./function_rules.ts";

/** CloudFront Functions' code size limit, in bytes. */
export const FUNCTION_CODE_LIMIT = 10 * 1024;

/** The most custom headers one response headers policy may hold (CloudFront quota). */
export const POLICY_HEADER_LIMIT = 10;

/**
 * Headers a response headers policy models in `SecurityHeadersConfig` with fixed fields rather
 * than as custom headers: the viewer-response function sets them as written.
 */
const SECURITY_HEADERS = new Set([
  "content-security-policy",
  "strict-transport-security",
  "x-content-type-options",
  "x-frame-options",
  "referrer-policy",
  "x-xss-protection",
]);

/** The site-wide pattern: rules `for` it go to the response headers policy. */
export const SITE_WIDE = "/*";

/** What the rules become on CloudFront. */
export interface RoutingSpec {
  /** Redirect and rewrite rules (config and `_redirects`). */
  readonly redirects: number;
  /** Header rules (config and `_headers`). */
  readonly headers: number;
  /** The viewer-request function's code. */
  readonly viewerRequestCode: string;
  /** `inline` (the table is in the code) or `store` (the code looks rules up). */
  readonly table: "inline" | "store";
  /** The store's contents: empty when the table is inline (a store left over is emptied). */
  readonly storeEntries: ReadonlyMap<string, string>;
  /** The viewer-response function's code; undefined when nothing needs one. */
  readonly viewerResponseCode: string | undefined;
  /** Site-wide headers for the response headers policy (name as written → value). */
  readonly policyHeaders: Readonly<Record<string, string>>;
}

/** What the spec depends on besides the rules. */
export interface RoutingOptions {
  /** `defaultRootObject`. */
  readonly indexDocument: string;
  /** Config `spa`. */
  readonly spa: boolean;
  /** Whether the site has a rules store (bootstrap made one). */
  readonly hasStore: boolean;
}

/**
 * Splits header rules between the response headers policy and the viewer-response function
 * (pure). A name goes to the policy when only `/*` rules set it, it is not a security header,
 * and the policy has room; every other rule stays a function rule (its `/*` values included,
 * so the function alone decides a name that per-path rules also set).
 *
 * @param rules the header rules, in order
 * @returns the policy's headers and the function's rules
 */
export function splitHeaderRules(
  rules: readonly HeaderRule[],
): { policy: Record<string, string>; functionRules: HeaderRule[] } {
  const perPath = new Set(
    rules.filter((r) => r.for !== SITE_WIDE).flatMap((r) =>
      Object.keys(r.values).map((n) => n.toLowerCase())
    ),
  );
  const policy: Record<string, string> = {};
  const taken = new Map<string, string>();
  for (const rule of rules.filter((r) => r.for === SITE_WIDE)) {
    for (const [name, value] of Object.entries(rule.values)) {
      const key = name.toLowerCase();
      if (perPath.has(key) || SECURITY_HEADERS.has(key)) continue;
      if (!taken.has(key) && taken.size >= POLICY_HEADER_LIMIT) continue;
      const written = taken.get(key) ?? name;
      taken.set(key, written);
      policy[written] = value; // a later rule wins a name
    }
  }
  const functionRules = rules.flatMap((r) => {
    if (r.for !== SITE_WIDE) return [r];
    const values = Object.fromEntries(
      Object.entries(r.values).filter(([name]) => !taken.has(name.toLowerCase())),
    );
    return Object.keys(values).length > 0 ? [{ for: r.for, values }] : [];
  });
  return { policy, functionRules };
}

const size = (code: string) => new TextEncoder().encode(code).byteLength;

/**
 * The spec for a build's rules (pure). The redirect table goes inline while the function's
 * code fits {@linkcode FUNCTION_CODE_LIMIT}, else into the store.
 *
 * @param rules the rules, config's first
 * @param keys the build's file keys (for rules without `force`)
 * @param options index document, `spa`, whether a store exists
 * @returns the spec
 * @throws {DeployError} `rules_too_large` when the rules fit neither the function nor the store
 */
export function routingSpec(
  rules: Readonly<{ redirects: readonly RedirectRule[]; headers: readonly HeaderRule[] }>,
  keys: readonly string[],
  options: RoutingOptions,
): RoutingSpec {
  const existing = shadowedPaths(rules.redirects, keys, options.indexDocument);
  const inline = rewriteFunctionCode(
    options.indexDocument,
    options.spa,
    rulesSection(rules.redirects, existing),
  );
  let viewerRequestCode = inline;
  let entries = new Map<string, string>();
  let table: RoutingSpec["table"] = "inline";
  if (size(inline) > FUNCTION_CODE_LIMIT) {
    if (!options.hasStore) {
      throw tooLarge(
        `${rules.redirects.length} redirect rules make ${
          size(inline)
        } bytes of function code, over CloudFront's ${FUNCTION_CODE_LIMIT}`,
        "run `deploy bootstrap` (it creates the rules store such tables go into), then deploy again",
      );
    }
    try {
      entries = storeEntries(rules.redirects, existing);
    } catch (err) {
      throw tooLarge(String((err as Error).message), "shorten that rule; nothing was uploaded");
    }
    viewerRequestCode = rewriteFunctionCode(
      options.indexDocument,
      options.spa,
      storeRulesSection(),
    );
    table = "store";
  }
  const { policy, functionRules } = splitHeaderRules(rules.headers);
  const needsResponse = functionRules.length > 0 || rules.redirects.some((r) => r.status === 404);
  const viewerResponseCode = needsResponse ? headersFunctionCode(functionRules) : undefined;
  if (viewerResponseCode && size(viewerResponseCode) > FUNCTION_CODE_LIMIT) {
    throw tooLarge(
      `the header rules make ${
        size(viewerResponseCode)
      } bytes of viewer-response code, over CloudFront's ${FUNCTION_CODE_LIMIT}`,
      "merge header rules with * patterns; nothing was uploaded",
    );
  }
  return {
    redirects: rules.redirects.length,
    headers: rules.headers.length,
    viewerRequestCode,
    table,
    storeEntries: entries,
    viewerResponseCode,
    policyHeaders: policy,
  };
}

function tooLarge(message: string, hint: string): DeployError {
  return new DeployError("rules_too_large", message, { hint });
}
