/**
 * A minimal HTTP/1.1 keep-alive client for load generation: one connection, one request at a
 * time, responses with `content-length` only. `fetch` costs more per request than the server
 * under test, so a benchmark driving it would mostly measure the client.
 *
 * @module
 */

const enc = new TextEncoder();
const dec = new TextDecoder();
const CRLFCRLF = [13, 10, 13, 10];

/** One response: status and body text. */
export interface RawResponse {
  readonly status: number;
  readonly body: string;
}

/** A keep-alive connection that POSTs forms. */
export class RawHttpConnection {
  #buf = new Uint8Array(64 * 1024);
  #len = 0;

  private constructor(private readonly conn: Deno.TcpConn, private readonly host: string) {}

  /** Connects to `hostname:port` with Nagle off. */
  static async open(hostname: string, port: number): Promise<RawHttpConnection> {
    const conn = await Deno.connect({ hostname, port });
    conn.setNoDelay(true);
    return new RawHttpConnection(conn, `${hostname}:${port}`);
  }

  /** POSTs `body` as a form to `path` and reads the whole response. */
  async postForm(path: string, body: string): Promise<RawResponse> {
    const req = `POST ${path} HTTP/1.1\r\nhost: ${this.host}\r\n` +
      `content-type: application/x-www-form-urlencoded\r\ncontent-length: ${body.length}\r\n\r\n` +
      body;
    const bytes = enc.encode(req);
    for (let off = 0; off < bytes.length;) off += await this.conn.write(bytes.subarray(off));
    let headEnd: number;
    while ((headEnd = this.#find(CRLFCRLF)) < 0) await this.#fill();
    const head = dec.decode(this.#buf.subarray(0, headEnd));
    const status = Number(head.slice(9, 12));
    const m = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    if (!m) throw new Error(`response without content-length: ${head}`);
    const total = headEnd + 4 + Number(m[1]);
    while (this.#len < total) await this.#fill();
    const text = dec.decode(this.#buf.subarray(headEnd + 4, total));
    this.#buf.copyWithin(0, total, this.#len);
    this.#len -= total;
    return { status, body: text };
  }

  /** Closes the connection. */
  close(): void {
    this.conn.close();
  }

  async #fill(): Promise<void> {
    if (this.#len === this.#buf.length) {
      const bigger = new Uint8Array(this.#buf.length * 2);
      bigger.set(this.#buf);
      this.#buf = bigger;
    }
    const n = await this.conn.read(this.#buf.subarray(this.#len));
    if (n === null) throw new Error("connection closed by the server");
    this.#len += n;
  }

  #find(seq: readonly number[]): number {
    const b = this.#buf;
    outer: for (let i = 0; i + seq.length <= this.#len; i++) {
      for (let j = 0; j < seq.length; j++) if (b[i + j] !== seq[j]) continue outer;
      return i;
    }
    return -1;
  }
}
