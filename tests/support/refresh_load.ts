/**
 * A refresh load for tests that fault the service (kill an instance, restart PostgreSQL): client
 * chains refreshing in a loop across instances, recording what they were answered.
 *
 * @module
 */
import { sleep } from "@org/shared";
import { waitFor } from "./wait.ts";

/** A service instance the load can call. */
export interface LoadTarget {
  readonly url: string;
}

/** A refresh request with the form body. */
export function refreshRequest(te: LoadTarget, token: string): Promise<Response> {
  return fetch(`${te.url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: token }),
  });
}

/** What a refresh load saw. */
export interface LoadResult {
  ok: number;
  /** 5xx answers (status and body). */
  serverErrors: { status: number; body: unknown }[];
  /** 200 answers after the first 5xx. */
  okAfterErrors: number;
  /** Each chain's last token answered 200. */
  last: string[];
}

/**
 * One client per token of `firsts`, each refreshing its own session in a loop, spread over
 * `servers` like a load balancer would. A connection error or 5xx is retried with the same token on the next
 * instance (what a client does when it did not get an answer): the retry either finds the
 * token still live or, inside the grace window, gets the successor it missed.
 */
export function refreshLoad(
  servers: readonly LoadTarget[],
  firsts: readonly string[],
): {
  /** What the load saw so far (live). */
  result: Readonly<LoadResult>;
  /** Resolves once `condition` holds of what the load saw. */
  until(condition: (r: Readonly<LoadResult>) => boolean, what: string): Promise<void>;
  stop(): Promise<LoadResult>;
} {
  const result: LoadResult = { ok: 0, serverErrors: [], okAfterErrors: 0, last: [] };
  let running = true;
  const loops = firsts.map((first, i) => {
    let token = first;
    return (async () => {
      let n = i;
      while (running) {
        const te = servers[n++ % servers.length]!;
        let res: Response;
        let body: { refresh_token?: string };
        try {
          res = await refreshRequest(te, token);
          body = await res.json();
        } catch {
          // No whole answer (an instance killed before or while it answered): try the next one
          // with the same token, after a pause (a dead instance refuses at once).
          await sleep(20);
          continue;
        }
        if (res.status === 200) {
          token = body.refresh_token!;
          result.ok++;
          if (result.serverErrors.length > 0) result.okAfterErrors++;
        } else if (res.status >= 500) {
          result.serverErrors.push({ status: res.status, body });
          await sleep(50);
        } else {
          throw new Error(`refresh refused: ${res.status} ${JSON.stringify(body)}`);
        }
      }
      return token;
    })();
  });
  return {
    result,
    async until(condition, what) {
      await waitFor(() => condition(result), what);
    },
    async stop() {
      running = false;
      result.last = await Promise.all(loops);
      return result;
    },
  };
}
