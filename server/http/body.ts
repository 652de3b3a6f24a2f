import { clip, invalidRequest, OAuthError } from "../errors.ts";
import { BodyReadError, readCappedText } from "./capped_body.ts";

/** Largest request body accepted by the form endpoints (bytes); ID tokens fit easily. */
export const MAX_FORM_BYTES = 64 * 1024;

/** The description of a request whose body did not arrive within the deadline. */
export const BODY_TIMEOUT_DESCRIPTION = "The request body was not received in time";

/**
 * Reads an `application/x-www-form-urlencoded` body with a size cap and a deadline.
 *
 * Repeated parameters are refused (RFC 6749 §3.2: parameters must not be included more than
 * once), and so are empty or malformed bodies.
 *
 * @param req the request
 * @param timeoutSeconds the deadline for the whole body (`server.body_timeout`); unset: none
 * @param maxBytes the cap (default {@linkcode MAX_FORM_BYTES})
 * @returns the parameters, each present at most once
 * @throws {OAuthError} 400 `invalid_request` for a wrong content type or repeated parameter,
 *   413 `invalid_request` for an oversized body, 408 when the body is late
 */
export async function readForm(
  req: Request,
  timeoutSeconds?: number,
  maxBytes = MAX_FORM_BYTES,
): Promise<Map<string, string>> {
  const header = req.headers.get("content-type");
  // The exact value every client sends is checked without splitting and lower-casing.
  const type = header === FORM ? FORM : (header ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== FORM) {
    throw invalidRequest("Content-Type must be application/x-www-form-urlencoded");
  }
  return parseForm(await readCapped(req, maxBytes, timeoutSeconds));
}

const FORM = "application/x-www-form-urlencoded";

/**
 * Parses a form body into a map, refusing repeated parameters.
 *
 * A well-formed body without `%` or `+` decodes to exactly its own characters, so it is split directly
 * (the refresh request, all base64url and `_`, is such a body); anything else goes through
 * `URLSearchParams`, which defines the decoding. Both give the same result on the same input:
 * `&`-separated pairs, empty pairs skipped, a name without `=` has the value `""`, the first
 * `=` separates name from value.
 *
 * @param text the decoded body
 * @returns the parameters, each present at most once
 * @throws {OAuthError} 400 `invalid_request` for a repeated parameter
 */
export function parseForm(text: string): Map<string, string> {
  const params = new Map<string, string>();
  const add = (k: string, v: string) => {
    if (params.has(k)) throw invalidRequest(`Parameter ${clip(k)} is repeated`);
    params.set(k, v);
  };
  if (text.includes("%") || text.includes("+") || !text.isWellFormed()) {
    for (const [k, v] of new URLSearchParams(text)) add(k, v);
    return params;
  }
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf("&", start);
    if (end < 0) end = text.length;
    if (end > start) {
      const eq = text.indexOf("=", start);
      if (eq < 0 || eq > end) add(text.slice(start, end), "");
      else add(text.slice(start, eq), text.slice(eq + 1, end));
    }
    start = end + 1;
  }
  return params;
}

/**
 * A request's body as text, at most `maxBytes` and within `timeoutSeconds`
 * ({@linkcode readCappedText}), its failures as the answers a client gets.
 *
 * @param req the request
 * @param maxBytes the cap
 * @param timeoutSeconds the deadline for the whole body; unset: none
 * @throws {OAuthError} 413 when the body is larger than `maxBytes`; 400 when it is not UTF-8
 *   or cannot be read to the end (client disconnected mid-body; the cause is logged at debug);
 *   408 when the body has not arrived within `timeoutSeconds`
 */
export async function readCapped(
  req: Pick<Request, "headers" | "body" | "arrayBuffer">,
  maxBytes: number,
  timeoutSeconds?: number,
): Promise<string> {
  try {
    return await readCappedText(req, maxBytes, timeoutSeconds);
  } catch (err) {
    throw err instanceof BodyReadError ? requestError(err, maxBytes) : err;
  }
}

/** What a client is told about its body that could not be read. */
function requestError(err: BodyReadError, maxBytes: number): OAuthError {
  switch (err.fault) {
    case "too_large":
      return new OAuthError(
        "invalid_request",
        413,
        `Request body is larger than ${maxBytes} bytes`,
      );
    case "late":
      // The connection still carries the rest of that body: a well-behaved client must not
      // reuse it.
      return new OAuthError("invalid_request", 408, BODY_TIMEOUT_DESCRIPTION, {
        Connection: "close",
      });
    case "not_utf8":
      return invalidRequest("Request body is not valid UTF-8");
    case "unreadable":
      // The client went away (or broke the stream) mid-body: its request failed, not our server.
      return new OAuthError(
        "invalid_request",
        400,
        "The request body could not be read",
        {},
        { msg: "request body read failed", err: err.cause },
      );
  }
}
