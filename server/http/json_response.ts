/**
 * Building the service's responses cheaply: they are on every `/token` request.
 *
 * `Response.json(body, { headers: {...} })` runs the `ResponseInit` headers record through
 * WebIDL conversion and validation on every call, which measured ~6–10 µs per response in
 * Deno 2.9 (more than serialising a token response). Creating the response bare and setting
 * its few headers on its `Headers` costs ~1 µs, and what goes on the wire is the same header
 * fields and values (`Content-Type: application/json` included).
 *
 * @module
 */

/** `Cache-Control: no-store`: every answer no cache may keep (admin API, health, errors). */
export const NO_STORE: Readonly<Record<string, string>> = Object.freeze({
  "cache-control": "no-store",
});

/** `Cache-Control: no-store` and `Pragma: no-cache`: token responses (RFC 6749 §5.1). */
export const TOKEN_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  ...NO_STORE,
  "pragma": "no-cache",
});

/**
 * A JSON response with the given headers.
 *
 * @param body the value to serialise
 * @param status the HTTP status
 * @param headers header fields to set (a frozen constant on hot paths)
 * @param extra more header fields, if any (`Retry-After`, `Allow`)
 * @returns the response
 *
 * @example
 * ```ts
 * const tokens = { access_token: "eyJ…", token_type: "Bearer", expires_in: 900 };
 * const res = jsonResponse(tokens, 200, TOKEN_HEADERS);
 * if (res.headers.get("cache-control") !== "no-store") throw new Error("tokens are not cached");
 * ```
 */
export function jsonResponse(
  body: unknown,
  status: number,
  headers: Readonly<Record<string, string>>,
  extra?: Readonly<Record<string, string>>,
): Response {
  const res = Response.json(body, status === 200 ? undefined : { status });
  setAll(res.headers, headers);
  if (extra !== undefined) setAll(res.headers, extra);
  return res;
}

/**
 * An empty response with the given headers (`POST /revoke`).
 *
 * @param status the HTTP status
 * @param headers header fields to set
 * @returns the response
 */
export function emptyResponse(status: number, headers: Readonly<Record<string, string>>): Response {
  const res = new Response(null, status === 200 ? undefined : { status });
  setAll(res.headers, headers);
  return res;
}

function setAll(target: Headers, fields: Readonly<Record<string, string>>): void {
  for (const name in fields) target.set(name, fields[name]!);
}
