/**
 * Validates a raw value against a {@link Field} definition and fills defaults, collecting
 * every issue instead of stopping at the first.
 *
 * @module
 */
import { type ConfigIssue, isHttpsOrLoopbackUrl } from "@org/shared";
import type { Field, MapField, NumberField, ObjectField, StringField } from "./field.ts";
import { graphemeCount } from "./graphemes.ts";
import { suggest } from "./suggest.ts";

/**
 * Checks `value` against `field` and returns it with defaults filled (objects merge key by
 * key with their defaults; arrays and scalars replace). Problems are pushed to `issues`.
 *
 * @param field the definition
 * @param value the raw value (never `undefined`; absent keys are handled by the caller)
 * @param path dotted key path used in issues
 * @param issues collects every problem found
 * @returns the resolved value, or `undefined` when it was invalid
 */
export function checkField(
  field: Field,
  value: unknown,
  path: string,
  issues: ConfigIssue[],
): unknown {
  const fail = (rule: string): undefined => {
    const got = field.kind === "string" && field.redact && typeof value === "string"
      ? `a value of ${value.length} characters, not shown`
      : show(value);
    issues.push({ path, message: `must ${rule} (got ${got})` });
    return undefined;
  };
  switch (field.kind) {
    case "string":
      return typeof value === "string" ? checkString(field, value, fail) : fail("be a string");
    case "number":
      return typeof value === "number" ? checkNumber(field, value, fail) : fail(numberRule(field));
    case "boolean":
      return typeof value === "boolean" ? value : fail("be true or false");
    case "enum":
      return typeof value === "string" && field.values.includes(value)
        ? value
        : fail(`be one of ${field.values.join(", ")}`);
    case "list": {
      if (!Array.isArray(value)) {
        return fail(field.items.kind === "string" ? "be an array of strings" : "be an array");
      }
      if (field.maxItems !== undefined && value.length > field.maxItems) {
        return fail(`have at most ${field.maxItems} items`);
      }
      const before = issues.length;
      const out = value.map((item, i) => checkField(field.items, item, `${path}[${i}]`, issues));
      return issues.length === before ? out : undefined;
    }
    case "map":
      return checkMap(field, value, path, issues);
    case "object":
      return checkObject(field, value, path, issues);
    case "deferred":
      // Carried through unchecked: its own resolver validates it when its commands run.
      return value;
  }
}

/**
 * Checks an object: rejects unknown keys (with a did-you-mean suggestion), reports missing
 * required keys, and resolves every known key (absent keys take their default).
 *
 * @param field the object definition
 * @param value the raw value
 * @param path the object's dotted path (`""` for the top level)
 * @param issues collects every problem found
 * @param allowed extra keys accepted without being resolved (the top level's `$schema`)
 * @returns the resolved object, or `undefined` when `value` is not an object
 */
export function checkObject(
  field: ObjectField,
  value: unknown,
  path: string,
  issues: ConfigIssue[],
  allowed: readonly string[] = [],
): Record<string, unknown> | undefined {
  if (!isPlainObject(value)) {
    issues.push({ path, message: `must be an object (got ${show(value)})` });
    return undefined;
  }
  const known = Object.keys(field.fields);
  for (const key of Object.keys(value)) {
    // hasOwn, not `in`: `"__proto__" in fields` and `"toString" in fields` are true.
    if (Object.hasOwn(field.fields, key) || allowed.includes(key)) continue;
    const guess = suggest(key, known);
    issues.push({
      path: join(path, key),
      message: `unknown key${guess ? ` (did you mean "${guess}"?)` : ""}`,
    });
  }
  const out: Record<string, unknown> = {};
  for (const [key, sub] of Object.entries(field.fields)) {
    const subPath = join(path, key);
    const raw = Object.hasOwn(value, key) ? value[key] : undefined;
    if (raw === undefined) {
      if (field.required?.includes(key)) {
        issues.push({ path: subPath, message: "is required" });
        continue;
      }
      const fallback = defaultOf(sub, subPath, issues);
      if (fallback !== undefined) out[key] = fallback;
      continue;
    }
    const resolved = checkField(sub, raw, subPath, issues);
    if (resolved !== undefined) out[key] = resolved;
  }
  return out;
}

/** Checks a map: every key against `keys`, every value against `values`. */
function checkMap(
  field: MapField,
  value: unknown,
  path: string,
  issues: ConfigIssue[],
): Record<string, string> | undefined {
  if (!isPlainObject(value)) {
    issues.push({ path, message: `must be an object (got ${show(value)})` });
    return undefined;
  }
  const before = issues.length;
  const out: Record<string, string> = {};
  for (const [key, raw] of Object.entries(value)) {
    const subPath = join(path, key);
    const keyFail = (rule: string): undefined => {
      issues.push({ path: subPath, message: `key must ${rule}` });
      return undefined;
    };
    if (checkString(field.keys, key, keyFail) === undefined) continue;
    const resolved = checkField(field.values, raw, subPath, issues);
    if (typeof resolved === "string") out[key] = resolved;
  }
  return issues.length === before ? out : undefined;
}

/**
 * The value an absent key resolves to: its default, or for a non-optional object all of its
 * fields' defaults.
 */
function defaultOf(field: Field, path: string, issues: ConfigIssue[]): unknown {
  if (field.kind === "object") {
    return field.optional ? undefined : checkObject(field, {}, path, issues);
  }
  if (field.kind === "deferred" || field.kind === "map") return undefined;
  if (field.kind === "list") return [...field.default];
  return field.default;
}

function checkString(
  field: StringField,
  value: string,
  fail: (rule: string) => undefined,
): string | undefined {
  if (field.nonBlank && value.trim() === "") return fail("be non-empty");
  if (field.minLength !== undefined && value.length < field.minLength) {
    return fail(`be at least ${field.minLength} characters`);
  }
  if (field.maxLength !== undefined && value.length > field.maxLength) {
    return fail(`be at most ${field.maxLength} characters`);
  }
  if (field.maxGraphemes !== undefined && graphemeCount(value) > field.maxGraphemes) {
    return fail(`be at most ${field.maxGraphemes} characters (graphemes)`);
  }
  if (field.pattern && !new RegExp(field.pattern.regex, "u").test(value)) {
    return fail(field.pattern.rule);
  }
  if (field.notPattern && new RegExp(field.notPattern.regex, "u").test(value)) {
    return fail(field.notPattern.rule);
  }
  if (field.httpsUrl && !isHttpsUrl(value, field.loopbackHttp === true)) {
    return fail(
      field.loopbackHttp
        ? "be a valid https: URL (plain http only on a loopback host)"
        : "be a valid https: URL",
    );
  }
  return value;
}

function checkNumber(
  field: NumberField,
  value: number,
  fail: (rule: string) => undefined,
): number | undefined {
  if (field.oneOf) return field.oneOf.includes(value) ? value : fail(numberRule(field));
  const ok = Number.isFinite(value) &&
    (!field.integer || Number.isInteger(value)) &&
    (field.minimum === undefined || value >= field.minimum) &&
    (field.maximum === undefined || value <= field.maximum);
  return ok ? value : fail(numberRule(field));
}

/**
 * The rule a number field states in its error message, e.g. `be one of 0.5, 1, 2, 4, 8` or
 * `be an integer from 1 to 28800`.
 *
 * @param field the number definition
 * @returns the rule, phrased to follow "must"
 */
export function numberRule(field: NumberField): string {
  if (field.oneOf) return `be one of ${field.oneOf.join(", ")}`;
  const noun = field.integer ? "integer" : "number";
  const { minimum: min, maximum: max } = field;
  if (min !== undefined && max !== undefined) return `be an ${noun} from ${min} to ${max}`;
  if (min === 1 && field.integer) return "be a positive integer";
  if (min === 0) return `be a non-negative ${noun}`;
  if (min !== undefined) return `be an ${noun} of at least ${min}`;
  if (max !== undefined) return `be an ${noun} of at most ${max}`;
  return field.integer ? "be an integer" : "be a number";
}

/** A plain JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isHttpsUrl(value: string, loopbackHttp: boolean): boolean {
  try {
    const url = new URL(value);
    return loopbackHttp ? isHttpsOrLoopbackUrl(url) : url.protocol === "https:";
  } catch {
    return false;
  }
}

/** How a bad value is quoted in an error message. */
function show(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (isPlainObject(value)) return "an object";
  if (value === undefined) return "nothing";
  return JSON.stringify(value);
}

function join(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}
