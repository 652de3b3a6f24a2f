/**
 * The errors the service may show a caller: the `OAuthError` family with RFC codes. The
 * domain (grants, providers, auth, admin) throws these; `http/errors.ts` turns them into responses.
 *
 * @module
 */

/**
 * Error codes of the spec's "Errors" table. `invalid_token` is the resource server's code for
 * our access tokens (RFC 6750 §3.1); the service itself never answers it: a refused ID token
 * at `/token` is `invalid_grant` (see `docs/http-api.md`).
 */
export type OAuthErrorCode =
  | "invalid_request"
  | "invalid_grant"
  | "unsupported_grant_type"
  | "invalid_token"
  | "unauthorized"
  | "access_denied"
  | "slow_down"
  | "server_error"
  | "not_found"
  | "conflict"
  | "method_not_allowed"
  | "invalid_dpop_proof"
  | "use_dpop_nonce"
  | "temporarily_unavailable";

/**
 * An error a caller may see: RFC 6749 §5.2 code, HTTP status, description and headers.
 * `server_error`s carry only generic descriptions; their detail goes to `cause` and the log.
 */
export class OAuthError extends Error {
  override name = "OAuthError";
  /**
   * @param code the `error` field
   * @param status the HTTP status
   * @param description the `error_description` field (safe to show)
   * @param headers extra response headers (`Allow`, `Retry-After`)
   * @param detail what only the log may see
   */
  constructor(
    readonly code: OAuthErrorCode,
    readonly status: number,
    readonly description: string,
    readonly headers: Readonly<Record<string, string>> = {},
    readonly detail?: unknown,
  ) {
    super(description);
  }
}

/** Longest user-supplied value {@linkcode clip} lets into an `error_description`. */
export const MAX_ECHOED_CHARS = 64;

/**
 * A user-supplied value made safe to quote in an `error_description`: at most
 * {@linkcode MAX_ECHOED_CHARS} characters, then `…`. Error bodies then never grow with the
 * input (nor echo a megabyte back to whoever sent it).
 *
 * @param value what the caller sent
 * @returns the value, or its first 64 characters followed by `…`
 *
 * @example
 * ```ts
 * invalidRequest(`Unknown provider ${clip(name)}`);
 * ```
 */
export function clip(value: string): string {
  const chars = [...value]; // by code point, so a surrogate pair is never split
  return chars.length <= MAX_ECHOED_CHARS ? value : `${chars.slice(0, MAX_ECHOED_CHARS).join("")}…`;
}

/** 400 `invalid_request`: a missing or malformed parameter, unknown provider. */
export const invalidRequest = (why: string): OAuthError =>
  new OAuthError("invalid_request", 400, why);
/** 400 `invalid_grant`: an invalid or expired code or refresh token. */
export const invalidGrant = (why: string): OAuthError => new OAuthError("invalid_grant", 400, why);
/** 400 `invalid_dpop_proof` (RFC 9449 §5): the `DPoP` header is missing, malformed or refused. */
export const invalidDpopProof = (why: string): OAuthError =>
  new OAuthError("invalid_dpop_proof", 400, why);
/** 400 `unsupported_grant_type`. */
export const unsupportedGrantType = (why: string): OAuthError =>
  new OAuthError("unsupported_grant_type", 400, why);
/** 403 `access_denied`: registration policy or user status refuses sign-in. */
export const accessDenied = (why: string): OAuthError => new OAuthError("access_denied", 403, why);
/** 404 for an unknown path. */
export const notFound = (): OAuthError => new OAuthError("not_found", 404, "No such endpoint");
/** 404 `not_found` for an internal-API resource that does not exist. */
export const resourceNotFound = (what: string): OAuthError =>
  new OAuthError("not_found", 404, `No such ${what}`);
/** 409 `conflict`: the resource would duplicate an existing one. */
export const conflict = (why: string): OAuthError => new OAuthError("conflict", 409, why);
/** 429 `slow_down` with `Retry-After` in whole seconds (at least 1). */
export const slowDown = (why: string, retryAfterSeconds: number): OAuthError =>
  new OAuthError("slow_down", 429, why, { "Retry-After": String(Math.max(1, retryAfterSeconds)) });
/**
 * 503 `temporarily_unavailable` (RFC 6749 §4.1.2.1): a dependency the operator configured
 * (the access-token hook) failed; retrying later may succeed.
 */
export const temporarilyUnavailable = (why: string, detail?: unknown): OAuthError =>
  new OAuthError("temporarily_unavailable", 503, why, {}, detail);
/** 405 naming the allowed methods in `Allow`. */
export const methodNotAllowed = (allow: readonly string[]): OAuthError =>
  new OAuthError("method_not_allowed", 405, `Use ${allow.join(" or ")} on this path`, {
    Allow: allow.join(", "),
  });

/** The one description every `server_error` carries, whatever happened. */
export const GENERIC_SERVER_ERROR = "The server could not complete the request";

/**
 * 5xx `server_error` (500 internal, 502 provider error, 504 provider timeout) with the generic
 * description; `detail` is logged, never returned.
 */
export const serverError = (status: 500 | 502 | 504, detail: unknown): OAuthError =>
  new OAuthError("server_error", status, GENERIC_SERVER_ERROR, {}, detail);
