/**
 * Worker half of `bench/token_refresh.ts`: drives refresh-token rotations over HTTP from its
 * own thread, so the load generator does not share the server's event loop. Each client owns
 * one session and follows its own rotation chain.
 *
 * Message in: `{ ports, tokens, perClient }` (client `i` talks to `ports[i % ports.length]`, as
 * a load balancer would spread them); message out: `{ latenciesMs, elapsedMs, errors }`.
 *
 * @module
 */
import { RawHttpConnection } from "./raw_http.ts";

/** What the bench sends the worker. */
export interface LoadRequest {
  /** The instances' ports on 127.0.0.1; clients are spread over them. */
  readonly ports: readonly number[];
  /** One starting refresh token per client. */
  readonly tokens: readonly string[];
  /** Rotations each client performs. */
  readonly perClient: number;
}

/** What the worker answers. */
export interface LoadResult {
  readonly latenciesMs: number[];
  readonly elapsedMs: number;
  readonly errors: number;
  readonly firstError?: string;
}

const scope = self as unknown as {
  onmessage: (e: MessageEvent<LoadRequest>) => void;
  postMessage: (m: LoadResult) => void;
};

scope.onmessage = async (e) => {
  const { ports, tokens, perClient } = e.data;
  const conns = await Promise.all(
    tokens.map((_, i) => RawHttpConnection.open("127.0.0.1", ports[i % ports.length]!)),
  );
  const latenciesMs: number[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const start = performance.now();
  await Promise.all(conns.map(async (conn, i) => {
    let token = tokens[i]!;
    for (let n = 0; n < perClient; n++) {
      const t0 = performance.now();
      const res = await conn.postForm("/token", `grant_type=refresh_token&refresh_token=${token}`);
      latenciesMs.push(performance.now() - t0);
      if (res.status !== 200) {
        errors++;
        firstError ??= `${res.status} ${res.body}`;
        return;
      }
      token = (JSON.parse(res.body) as { refresh_token: string }).refresh_token;
    }
  }));
  const elapsedMs = performance.now() - start;
  for (const c of conns) c.close();
  scope.postMessage({ latenciesMs, elapsedMs, errors, ...(firstError ? { firstError } : {}) });
};
