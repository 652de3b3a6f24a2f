/**
 * Reading a body (a request's or a provider's answer) with a size cap and a deadline, its
 * failures as plain facts: the request side turns them into its 4xx answers (`body.ts`), a
 * provider call into its 502 (`providers/provider_fetch.ts`).
 *
 * @module
 */
import { LATE, ReadDeadlines } from "./read_deadlines.ts";

/** Why a body could not be read. */
export type BodyFault = "too_large" | "unreadable" | "late" | "not_utf8";

/** A body that could not be read, and why; `cause` is the stream's own error, if any. */
export class BodyReadError extends Error {
  override name = "BodyReadError";
  /**
   * @param fault why
   * @param options the stream's error, if any
   */
  constructor(readonly fault: BodyFault, options?: { cause?: unknown }) {
    super(`body not read: ${fault}`, options);
  }
}

/**
 * The body as text, refusing more than `maxBytes` without reading past the cap, and giving up
 * after `timeoutSeconds`: a client that sends its body a byte at a time holds a request (and
 * up to `maxBytes` of buffer) for as long as it likes otherwise.
 *
 * @param source the request or response
 * @param maxBytes the cap
 * @param timeoutSeconds the deadline for the whole body; unset: none
 * @returns the body, decoded as UTF-8
 * @throws {BodyReadError} larger than `maxBytes`, not UTF-8, broken off mid-body, or late
 *
 * @example
 * ```ts
 * const text = await readCappedText(new Response("ok"), 1024);
 * if (text !== "ok") throw new Error("read");
 * ```
 */
export async function readCappedText(
  source: Pick<Request, "headers" | "body" | "arrayBuffer">,
  maxBytes: number,
  timeoutSeconds?: number,
): Promise<string> {
  const length = source.headers.get("content-length");
  const declared = Number(length ?? "0");
  if (declared > maxBytes) throw new BodyReadError("too_large");
  let all: Uint8Array;
  if (length !== null) {
    // A declared length is enforced by the HTTP server (the body cannot run past it), so one
    // read of the whole body is safe. It is also the fast path of `Deno.serve` (the body is
    // taken whole, no stream is built), as long as `req.body` is never touched first: this
    // is on every /token request. The check after the read covers an in-process Request.
    const read = source.arrayBuffer();
    try {
      all = new Uint8Array(
        await (timeoutSeconds === undefined ? read : DEADLINES.race(read, timeoutSeconds)),
      );
    } catch (err) {
      if (err === LATE) throw new BodyReadError("late");
      throw new BodyReadError("unreadable", { cause: err });
    }
    if (all.byteLength > maxBytes) throw new BodyReadError("too_large");
  } else {
    if (!source.body) return "";
    const reader = source.body.getReader();
    const read = readChunked(reader, maxBytes);
    try {
      all = await (timeoutSeconds === undefined ? read : DEADLINES.race(
        read,
        timeoutSeconds,
        // Cancelling ends the pending read, and with it the reading loop.
        () => void reader.cancel().catch(() => {}),
      ));
    } catch (err) {
      throw err === LATE ? new BodyReadError("late") : err;
    }
  }
  try {
    return UTF8.decode(all);
  } catch {
    throw new BodyReadError("not_utf8");
  }
}

/** The process's body-read deadlines, on one shared timer (created on first use). */
const DEADLINES = new ReadDeadlines();

/** A fatal decoder can be shared: `decode` without `stream` starts afresh on every call. */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** Reads a body of unknown length, cancelling it as soon as it passes `maxBytes`. */
async function readChunked(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (err) {
      throw new BodyReadError("unreadable", { cause: err });
    }
    const { done, value } = chunk;
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new BodyReadError("too_large");
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
