/**
 * The rules every stored or issued claims object follows, whoever writes it (the internal API, the
 * console, the access-token hook): pure checks that answer 400 `invalid_request` naming what is
 * wrong. A leaf, so the admin API and the grants can both use it.
 *
 * @module
 */
import { RESERVED_CLAIMS } from "../config/schema.ts";
import { clip, invalidRequest } from "../errors.ts";
import { isStorableJson } from "../users/storable_text.ts";

type Json = Record<string, unknown>;

/** Largest serialized claims object (bytes of JSON). */
export const MAX_CLAIMS_BYTES = 8 * 1024;
/**
 * Deepest nesting of objects and arrays inside `metadata` or `claims` (the object itself is
 * level 1). Far beyond any real use; without it a few KiB of `[[[[…]]]]` overflow the stack of
 * the store's serializer and the request fails with a 500.
 */
export const MAX_JSON_DEPTH = 32;
/** Claim names refused because they name JavaScript object internals (prototype pollution). */
export const FORBIDDEN_CLAIM_NAMES: ReadonlySet<string> = new Set([
  "__proto__",
  "constructor",
  "prototype",
]);

/**
 * Validates a claims object: a JSON object, no reserved JWT claim name
 * (`iss sub aud exp nbf iat jti sid`), no `__proto__`/`constructor`/`prototype`, no empty
 * name, at most {@linkcode MAX_CLAIMS_BYTES}. For a merge (`PATCH`), `null` values mean
 * "remove this claim" and are kept as `null`; for a replacement (`PUT`, or `claims` on create)
 * a `null` value is refused: there is nothing to remove, and a `null` claim is never issued.
 *
 * @param value the parsed body (or its `claims` field)
 * @param field how to name it in errors
 * @param mode `replace` (default) or `merge`
 * @throws {OAuthError} 400 `invalid_request` naming the offending claim
 */
export function parseClaims(
  value: unknown,
  field = "claims",
  mode: "replace" | "merge" = "replace",
): Json {
  if (!isObject(value)) throw invalidRequest(`Field "${field}" must be a JSON object`);
  checkDepth(value, field);
  checkStorable(value, field);
  for (const [name, v] of Object.entries(value)) {
    if (name === "") throw invalidRequest("Claim names must not be empty");
    if (RESERVED_CLAIMS.has(name)) {
      throw invalidRequest(`Claim "${clip(name)}" is a reserved JWT claim and cannot be set`);
    }
    if (FORBIDDEN_CLAIM_NAMES.has(name)) {
      throw invalidRequest(`Claim "${name}" is not allowed as a claim name`);
    }
    if (v === null && mode === "replace") {
      throw invalidRequest(
        `Claim "${clip(name)}" is null; null only removes a claim in PATCH (merge)`,
      );
    }
  }
  checkClaimsSize(value);
  return value;
}

/**
 * Refuses a claims map larger than {@linkcode MAX_CLAIMS_BYTES} once serialized.
 *
 * @throws {OAuthError} 400 `invalid_request`
 */
export function checkClaimsSize(claims: Json): void {
  if (byteLength(claims) > MAX_CLAIMS_BYTES) {
    throw invalidRequest(`Claims must not exceed ${MAX_CLAIMS_BYTES} bytes of JSON`);
  }
}

/**
 * Refuses text some store cannot hold exactly, so the answer never depends on the store.
 *
 * @throws {OAuthError} 400 `invalid_request` naming `field`
 */
export function checkStorable(value: unknown, field: string): void {
  if (!isStorableJson(value)) {
    throw invalidRequest(
      `Field "${field}" must not contain NUL characters (U+0000) or unpaired surrogates`,
    );
  }
}

/**
 * Refuses objects and arrays nested deeper than {@linkcode MAX_JSON_DEPTH}.
 *
 * @throws {OAuthError} 400 `invalid_request` naming `field`
 */
export function checkDepth(value: Json, field: string): void {
  if (tooDeep(value, 1)) {
    throw invalidRequest(`Field "${field}" must not nest deeper than ${MAX_JSON_DEPTH} levels`);
  }
}

/** True when `v` nests objects or arrays deeper than {@linkcode MAX_JSON_DEPTH}; stops there. */
function tooDeep(v: unknown, level: number): boolean {
  if (typeof v !== "object" || v === null) return false;
  if (level > MAX_JSON_DEPTH) return true;
  for (const child of Array.isArray(v) ? v : Object.values(v)) {
    if (tooDeep(child, level + 1)) return true;
  }
  return false;
}

/** True for a JSON object (not an array, not `null`). */
export function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** Bytes of `v` serialized as JSON (UTF-8). */
export function byteLength(v: unknown): number {
  return new TextEncoder().encode(JSON.stringify(v)).length;
}
