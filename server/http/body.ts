import { clip, invalidRequest, OAuthError } from "./errors.ts";

/** Largest request body accepted by the form endpoints (bytes); ID tokens fit easily. */
export const MAX_FORM_BYTES = 64 * 1024;

/**
 * Reads an `application/x-www-form-urlencoded` body with a size cap.
 *
 * Repeated parameters are refused (RFC 6749 §3.2: parameters must not be included more than
 * once), and so are empty or malformed bodies.
 *
 * @param req the request
 * @param maxBytes the cap (default {@linkcode MAX_FORM_BYTES})
 * @returns the parameters, each present at most once
 * @throws {OAuthError} 400 `invalid_request` for a wrong content type or repeated parameter,
 *   413 `invalid_request` for an oversized body
 */
export async function readForm(
  req: Request,
  maxBytes = MAX_FORM_BYTES,
): Promise<Map<string, string>> {
  const type = (req.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw invalidRequest("Content-Type must be application/x-www-form-urlencoded");
  }
  const text = await readCapped(req, maxBytes);
  const params = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(text)) {
    if (params.has(k)) throw invalidRequest(`Parameter ${clip(k)} is repeated`);
    params.set(k, v);
  }
  return params;
}

/**
 * The body as text, refusing more than `maxBytes` without reading past the cap.
 *
 * @throws {OAuthError} 413 when the body is larger than `maxBytes`; 400 when it is not UTF-8
 *   or cannot be read to the end (client disconnected mid-body; the cause is logged at debug)
 */
export async function readCapped(req: Request, maxBytes: number): Promise<string> {
  const tooLarge = () =>
    new OAuthError("invalid_request", 413, `Request body is larger than ${maxBytes} bytes`);
  const declared = Number(req.headers.get("content-length") ?? "0");
  if (declared > maxBytes) throw tooLarge();
  if (!req.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = req.body.getReader();
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (err) {
      // The client went away (or broke the stream) mid-body: its request, not our failure.
      throw new OAuthError(
        "invalid_request",
        400,
        "The request body could not be read",
        {},
        { msg: "request body read failed", err },
      );
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
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(all);
  } catch {
    throw invalidRequest("Request body is not valid UTF-8");
  }
}
