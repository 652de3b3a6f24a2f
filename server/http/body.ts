import { clip, invalidRequest, OAuthError } from "../errors.ts";
import { LATE, ReadDeadlines } from "./read_deadlines.ts";

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
 * The body as text, refusing more than `maxBytes` without reading past the cap, and giving up
 * after `timeoutSeconds`: a client that sends its body a byte at a time holds a request (and
 * up to `maxBytes` of buffer) for as long as it likes otherwise. Also reads a provider's
 * `Response` (the caller turns the errors into its own; the fetch's own deadline covers it).
 *
 * @param req the request (or response)
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
  const tooLarge = () =>
    new OAuthError("invalid_request", 413, `Request body is larger than ${maxBytes} bytes`);
  const length = req.headers.get("content-length");
  const declared = Number(length ?? "0");
  if (declared > maxBytes) throw tooLarge();
  let all: Uint8Array;
  if (length !== null) {
    // A declared length is enforced by the HTTP server (the body cannot run past it), so one
    // read of the whole body is safe. It is also the fast path of `Deno.serve` (the body is
    // taken whole, no stream is built), as long as `req.body` is never touched first: this
    // is on every /token request. The check after the read covers an in-process Request.
    const read = req.arrayBuffer();
    try {
      all = new Uint8Array(
        await (timeoutSeconds === undefined ? read : DEADLINES.race(read, timeoutSeconds)),
      );
    } catch (err) {
      if (err === LATE) throw bodyTimeout();
      throw unreadable(err);
    }
    if (all.byteLength > maxBytes) throw tooLarge();
  } else {
    if (!req.body) return "";
    const reader = req.body.getReader();
    const read = readChunked(reader, maxBytes, tooLarge);
    try {
      all = await (timeoutSeconds === undefined ? read : DEADLINES.race(
        read,
        timeoutSeconds,
        // Cancelling ends the pending read, and with it the reading loop.
        () => void reader.cancel().catch(() => {}),
      ));
    } catch (err) {
      throw err === LATE ? bodyTimeout() : err;
    }
  }
  try {
    return UTF8.decode(all);
  } catch {
    throw invalidRequest("Request body is not valid UTF-8");
  }
}

/** The client went away (or broke the stream) mid-body: its request failed, not our server. */
function unreadable(err: unknown): OAuthError {
  return new OAuthError(
    "invalid_request",
    400,
    "The request body could not be read",
    {},
    { msg: "request body read failed", err },
  );
}

/** The process's body-read deadlines, on one shared timer (created on first use). */
const DEADLINES = new ReadDeadlines();

/**
 * 408 for a body that did not arrive in time, with `Connection: close`: the connection still
 * carries the rest of that body, so a well-behaved client must not reuse it.
 */
function bodyTimeout(): OAuthError {
  return new OAuthError("invalid_request", 408, BODY_TIMEOUT_DESCRIPTION, {
    Connection: "close",
  });
}

/** A fatal decoder can be shared: `decode` without `stream` starts afresh on every call. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Reads a body of unknown length, cancelling it as soon as it passes `maxBytes`. */
async function readChunked(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes: number,
  tooLarge: () => OAuthError,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (err) {
      throw unreadable(err);
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let off = 0;
  for (const c of chunks) {
    all.set(c, off);
    off += c.byteLength;
  }
  return all;
}
