/**
 * A request on a raw connection whose head is sent whole and whose body stalls: for tests of
 * what the server does before (or without) the whole body.
 *
 * @module
 */
import { WAIT_CAP_MS } from "./wait.ts";

/** A request whose head is sent whole and whose body stalls after `sent` bytes. */
export interface Stalled {
  /** The status line and body the server answered, or "no answer" after `waitMs`. */
  answer(waitMs?: number): Promise<{ status: number; body: string } | "no answer">;
  close(): void;
}

/**
 * Sends a POST's head and the first `sent` bytes of its body (a declared length 100 bytes
 * longer, or one chunk of a chunked body), then nothing more.
 */
export async function stalledRequest(
  url: string,
  path: string,
  options: {
    headers?: Record<string, string>;
    chunked?: boolean;
    sent?: string;
    /** Default `application/x-www-form-urlencoded`. */
    contentType?: string;
  } = {},
): Promise<Stalled> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  const sent = options.sent ?? "grant_type=refresh_token&refresh_token=";
  const framing = options.chunked
    ? `transfer-encoding: chunked\r\n\r\n${sent.length.toString(16)}\r\n${sent}\r\n`
    : `content-length: ${sent.length + 100}\r\n\r\n${sent}`;
  const extra = Object.entries(options.headers ?? {}).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  await conn.write(new TextEncoder().encode(
    `POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\n` +
      `content-type: ${
        options.contentType ?? "application/x-www-form-urlencoded"
      }\r\n${extra}${framing}`,
  ));
  return {
    async answer(waitMs = WAIT_CAP_MS) {
      const buf = new Uint8Array(8192);
      let timer: ReturnType<typeof setTimeout> | undefined;
      const read = conn.read(buf);
      const late = new Promise<"late">((r) => timer = setTimeout(() => r("late"), waitMs));
      const n = await Promise.race([read, late]);
      clearTimeout(timer);
      if (n === "late") {
        read.catch(() => {});
        return "no answer";
      }
      const text = new TextDecoder().decode(buf.subarray(0, n ?? 0));
      return {
        status: Number(text.split(" ")[1]),
        body: text.slice(text.indexOf("\r\n\r\n") + 4),
      };
    },
    close: () => conn.close(),
  };
}
