/**
 * Judging the access-token hook's answer, as a pure function: what claims it adds, or why the
 * answer is refused. Every refusal is a sentence an operator can act on; none throws.
 *
 * @module
 */
import { isObject, parseClaims } from "../claims/claim_rules.ts";
import { HOOK_RESERVED_CLAIMS } from "../config/schema.ts";
import { clip, OAuthError } from "../errors.ts";

/**
 * Largest answer body read from the hook (bytes). The claims themselves are held to the admin
 * API's bound (`MAX_CLAIMS_BYTES`, checked after parsing); this cap only stops a hostile hook
 * from making us buffer without bound.
 */
export const MAX_HOOK_ANSWER_BYTES = 64 * 1024;

/** What the hook's answer gives: claims to merge, or the reason it was refused. */
export type HookAnswer =
  | { readonly claims: Readonly<Record<string, unknown>> }
  | { readonly error: string };

/**
 * Reads the hook's answer: a 2xx status and the JSON body `{"claims": {…}}` (no other field).
 * The claims are held to the admin API's rules (`parseClaims`: a JSON object, at most
 * `MAX_CLAIMS_BYTES` serialized and `MAX_JSON_DEPTH` deep, no `null`, no reserved or
 * prototype-polluting name) and may not set {@linkcode HOOK_RESERVED_CLAIMS}.
 *
 * @param status the answer's HTTP status
 * @param text the answer's body (at most {@linkcode MAX_HOOK_ANSWER_BYTES})
 * @returns the claims, or the reason the answer is refused
 *
 * @example
 * ```ts
 * readHookAnswer(200, '{"claims":{"plan":"pro"}}'); // { claims: { plan: "pro" } }
 * readHookAnswer(200, '{"claims":{"sub":"x"}}'); // { error: 'Claim "sub" is a reserved …' }
 * ```
 */
export function readHookAnswer(status: number, text: string): HookAnswer {
  if (status < 200 || status > 299) return { error: `answered HTTP ${status}` };
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return { error: "answered with a body that is not JSON" };
  }
  if (!isObject(body)) {
    return { error: 'answered with something other than {"claims": {…}}' };
  }
  for (const key of Object.keys(body)) {
    if (key !== "claims") return { error: `answered with an unknown field "${clip(key)}"` };
  }
  const claims = body.claims;
  if (claims === undefined) return { error: 'answered without "claims"' };
  try {
    const checked = parseClaims(claims, "claims");
    for (const name of Object.keys(checked)) {
      if (HOOK_RESERVED_CLAIMS.has(name)) {
        return { error: `Claim "${name}" is reserved and cannot be set by the hook` };
      }
    }
    return { claims: checked };
  } catch (err) {
    if (err instanceof OAuthError) return { error: err.description };
    throw err;
  }
}
