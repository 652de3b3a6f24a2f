/**
 * `token.custom_claims` values that refer to the signed-in user: `{{ user.email }}`,
 * `{{ user.metadata.role }}`, `{{ user.claims.plan | default: "free" }}`.
 *
 * The grammar is deliberately tiny, so a config file can never run code or evaluate
 * expressions: a placeholder is `{{`, a path `user.<field>` (`id`, `email`, `display_name`,
 * `provider`, `external_id`, or `metadata.<key>…` / `claims.<key>…` with dotted keys of
 * `A-Z a-z 0-9 _ -`), optionally `| default: <literal>` (a JSON string, number, `true`,
 * `false` or `null`), then `}}`, with spaces allowed between the parts. Any string containing
 * `{{` must be a valid template; there is no escape.
 *
 * Templates are compiled once, when the config is resolved; rendering per token walks the
 * compiled form only, and a config without templates renders to the very same object.
 *
 * @module
 */
import type { UserRecord } from "../store/users.ts";

/** The user fields a template may name. */
export type TemplateUser = Pick<
  UserRecord,
  "id" | "email" | "display_name" | "provider" | "external_id" | "metadata" | "claims"
>;

/** `token.custom_claims` compiled: claims without templates, then those with. */
export interface CompiledClaims {
  /** Claims whose values contain no template: used as they are. */
  readonly literal: Readonly<Record<string, unknown>>;
  /** Claims whose values contain a template somewhere, rendered per user. */
  readonly templated: readonly (readonly [string, ClaimNode])[];
}

/** A compiled claim value that contains at least one template. */
export type ClaimNode =
  | { readonly kind: "literal"; readonly value: unknown }
  | { readonly kind: "whole"; readonly placeholder: Placeholder }
  | { readonly kind: "text"; readonly parts: readonly (string | Placeholder)[] }
  | { readonly kind: "object"; readonly entries: readonly (readonly [string, ClaimNode])[] }
  | { readonly kind: "array"; readonly items: readonly ClaimNode[] };

/** One `{{ user.… }}` placeholder. */
export interface Placeholder {
  /** The path below `user`, e.g. `["metadata", "role"]`. */
  readonly path: readonly string[];
  /** The `default:` literal, when given. */
  readonly fallback?: { readonly value: unknown };
}

/** A template problem, at a dotted path below `token.custom_claims`. */
export interface TemplateIssue {
  /** Dotted path of the value (`role`, `org.name`, `groups.0`). */
  readonly path: string;
  readonly message: string;
}

const FIELDS = ["id", "email", "display_name", "provider", "external_id"] as const;
const MAPS = ["metadata", "claims"] as const;

const SEGMENT = /^[A-Za-z0-9_-]+$/;
/** `user.<path>` then an optional `| default: <literal>`, spaces around every part. */
const PLACEHOLDER = /^\s*user((?:\.[^.\s|}]*)+)\s*(?:\|\s*default\s*:\s*(.*?))?\s*$/s;
/** The shapes `default:` accepts (JSON strings, numbers, booleans, null); JSON.parse decides. */
const LITERAL = /^(?:"(?:[^"\\]|\\.)*"|-?\d[\d.eE+-]*|true|false|null)$/;

/**
 * Parses one string. A string without `{{` is no template (`undefined`); otherwise it must be
 * a valid template, whose placeholders are returned with the text between them.
 *
 * @param text the configured string
 * @returns `undefined` for plain text, the parsed template, or an error message
 *
 * @example
 * ```ts
 * parseTemplate('{{ user.claims.plan | default: "free" }}');
 * // { parts: [{ path: ["claims", "plan"], fallback: { value: "free" } }] }
 * ```
 */
export function parseTemplate(
  text: string,
): { parts: (string | Placeholder)[] } | { error: string } | undefined {
  if (!text.includes("{{")) return undefined;
  const parts: (string | Placeholder)[] = [];
  let at = 0;
  while (at < text.length) {
    const open = text.indexOf("{{", at);
    if (open < 0) {
      parts.push(text.slice(at));
      break;
    }
    if (open > at) parts.push(text.slice(at, open));
    const close = text.indexOf("}}", open + 2);
    if (close < 0) return { error: `"{{" at character ${open + 1} is never closed by "}}"` };
    const inner = text.slice(open + 2, close);
    if (inner.includes("{{")) return { error: `"{{" at character ${open + 1} is never closed` };
    const placeholder = parsePlaceholder(inner);
    if ("error" in placeholder) return placeholder;
    parts.push(placeholder);
    at = close + 2;
  }
  return { parts };
}

function parsePlaceholder(inner: string): Placeholder | { error: string } {
  const m = PLACEHOLDER.exec(inner);
  if (!m) {
    return {
      error: `"{{${inner}}}" is not a template: expected {{ user.<field> }} or ` +
        `{{ user.<field> | default: <literal> }}`,
    };
  }
  const path = m[1]!.slice(1).split(".");
  const field = path[0]!;
  if ((FIELDS as readonly string[]).includes(field)) {
    if (path.length > 1) return { error: `user.${field} has no fields (in "{{${inner}}}")` };
  } else if ((MAPS as readonly string[]).includes(field)) {
    if (path.length < 2) {
      return { error: `user.${field} needs a key, like user.${field}.role (in "{{${inner}}}")` };
    }
  } else {
    return {
      error: `unknown field user.${field} (in "{{${inner}}}"); known: ` +
        [...FIELDS, ...MAPS.map((f) => `${f}.*`)].join(", "),
    };
  }
  for (const segment of path) {
    if (!SEGMENT.test(segment)) {
      return {
        error: `"${segment}" is not a key: use A-Z, a-z, 0-9, _ and - (in "{{${inner}}}")`,
      };
    }
  }
  const literal = m[2];
  if (literal === undefined) return { path };
  let value: unknown;
  try {
    if (!LITERAL.test(literal)) throw new SyntaxError(literal);
    value = JSON.parse(literal);
  } catch {
    return {
      error: `default: ${literal} is not a literal: use a "double-quoted string", a number, ` +
        `true, false or null (in "{{${inner}}}")`,
    };
  }
  return { path, fallback: { value } };
}

/**
 * Compiles `token.custom_claims`: every string anywhere in a value (nested tables and lists
 * included) is parsed with {@linkcode parseTemplate}. All problems are returned together.
 *
 * @param claims the configured claims (JSON-like values)
 * @returns the compiled claims, or every issue, each at its dotted path
 */
export function compileClaims(
  claims: Readonly<Record<string, unknown>>,
): { claims: CompiledClaims } | { issues: TemplateIssue[] } {
  const issues: TemplateIssue[] = [];
  const literal: Record<string, unknown> = {};
  const templated: (readonly [string, ClaimNode])[] = [];
  for (const [name, value] of Object.entries(claims)) {
    const node = compileValue(value, name, issues);
    if (node.kind === "literal") literal[name] = node.value;
    else templated.push([name, node]);
  }
  return issues.length > 0 ? { issues } : { claims: { literal, templated } };
}

function compileValue(value: unknown, path: string, issues: TemplateIssue[]): ClaimNode {
  if (typeof value === "string") {
    const parsed = parseTemplate(value);
    if (parsed === undefined) return { kind: "literal", value };
    if ("error" in parsed) {
      issues.push({ path, message: parsed.error });
      return { kind: "literal", value };
    }
    const only = parsed.parts.length === 1 ? parsed.parts[0] : undefined;
    return only !== undefined && typeof only !== "string"
      ? { kind: "whole", placeholder: only }
      : { kind: "text", parts: parsed.parts };
  }
  if (Array.isArray(value)) {
    const items = value.map((v, i) => compileValue(v, `${path}.${i}`, issues));
    return items.every((n) => n.kind === "literal") ? { kind: "literal", value } : {
      kind: "array",
      items,
    };
  }
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]) =>
      [k, compileValue(v, `${path}.${k}`, issues)] as const
    );
    return entries.every(([, n]) => n.kind === "literal") ? { kind: "literal", value } : {
      kind: "object",
      entries,
    };
  }
  return { kind: "literal", value };
}

/** Compiled claims with no templates and no literals. */
export const NO_CLAIMS: CompiledClaims = { literal: {}, templated: [] };

/**
 * The claims for one user. Without templates this is `claims.literal` itself (nothing is
 * allocated on the token path).
 *
 * - A whole-string template (`"{{ user.metadata.age }}"`) keeps the JSON type of the value
 *   it names (number, boolean, list, table…); inside other text the value is written as text
 *   (strings as they are, anything else as JSON).
 * - A missing value, `null` or `""` takes the `default:`; without one, a whole-string
 *   template leaves its claim (or table key) out, is `null` in a list, and is empty text
 *   inside other text.
 *
 * @param claims the compiled `token.custom_claims`
 * @param user the user the token is for
 * @returns the claims to merge under the user's own claims
 */
export function renderClaims(
  claims: CompiledClaims,
  user: TemplateUser,
): Readonly<Record<string, unknown>> {
  if (claims.templated.length === 0) return claims.literal;
  const out: Record<string, unknown> = { ...claims.literal };
  for (const [name, node] of claims.templated) {
    const value = renderNode(node, user);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

function renderNode(node: ClaimNode, user: TemplateUser): unknown {
  switch (node.kind) {
    case "literal":
      return node.value;
    case "whole":
      return resolve(node.placeholder, user);
    case "text":
      return node.parts.map((p) => typeof p === "string" ? p : asText(resolve(p, user))).join("");
    case "array":
      return node.items.map((n) => renderNode(n, user) ?? null);
    case "object": {
      const out: Record<string, unknown> = {};
      for (const [k, n] of node.entries) {
        const v = renderNode(n, user);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
  }
}

function resolve(p: Placeholder, user: TemplateUser): unknown {
  let value: unknown = user;
  for (const segment of p.path) {
    // Own properties of plain objects only: a key never reaches a prototype (`constructor`).
    value = value !== null && typeof value === "object" && !Array.isArray(value) &&
        Object.hasOwn(value, segment)
      ? (value as Record<string, unknown>)[segment]
      : undefined;
  }
  if (value === undefined || value === null || value === "") return p.fallback?.value;
  return value;
}

function asText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}
