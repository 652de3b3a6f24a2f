/**
 * Binding the dashboard to `127.0.0.1:<analytics.dashboard.port>` and stopping it. The only
 * place the plugin calls `Deno.serve`: loopback only, a taken port becomes `port_in_use`
 * naming the key to change, and shutting down releases the port.
 *
 * @module
 */
import { DeployError } from "@org/deploy/plugin";
import { ANALYTICS_ERROR_CODES } from "../section.ts";

/** The one address the dashboard listens on. */
export const DASHBOARD_HOST = "127.0.0.1";

/** A running dashboard server. */
export interface DashboardServer extends AsyncDisposable {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string;
  /** The bound port. */
  readonly port: number;
  /** Stops accepting, finishes open requests and frees the port. */
  shutdown(): Promise<void>;
}

/**
 * Starts the server.
 *
 * @param port the port (`analytics.dashboard.port`; 0 picks a free one, for tests)
 * @param makeHandler builds the handler once the port is known (its `Host` check needs it)
 * @returns the server; `await using` stops it
 * @throws {DeployError} `port_in_use` when another program has the port
 */
export function serveDashboard(
  port: number,
  makeHandler: (port: number) => (req: Request) => Promise<Response>,
): DashboardServer {
  // Set once the port is known; until then (a request in the first instant) answer 503.
  const route: { handler?: (req: Request) => Promise<Response> } = {};
  let server: Deno.HttpServer<Deno.NetAddr>;
  try {
    server = Deno.serve(
      { hostname: DASHBOARD_HOST, port, onListen: () => {} },
      (req) =>
        route.handler ? route.handler(req) : Promise.resolve(new Response(null, { status: 503 })),
    );
  } catch (err) {
    if (err instanceof Deno.errors.AddrInUse) {
      throw new DeployError(
        ANALYTICS_ERROR_CODES.portInUse,
        `the dashboard cannot listen on ${DASHBOARD_HOST}:${port}: another program uses the port`,
        {
          hint: "stop that program, or set analytics.dashboard.port (1024 to 65535) to a free " +
            "port in the site's configuration",
          cause: err,
        },
      );
    }
    throw err;
  }
  const bound = server.addr.port;
  route.handler = makeHandler(bound);
  let stopped: Promise<void> | undefined;
  const shutdown = () => stopped ??= server.shutdown();
  return {
    url: `http://${DASHBOARD_HOST}:${bound}/`,
    port: bound,
    shutdown,
    [Symbol.asyncDispose]: shutdown,
  };
}

/**
 * Resolves on the first Ctrl-C (SIGINT) or SIGTERM, or when `abort` aborts (the CLI's own
 * interrupt signal, or a test's), then stops listening, so the caller shuts the server down
 * instead of the process dying with the port held.
 *
 * @param abort an optional signal that stops the wait too
 * @returns the signal received, or `"abort"`
 */
export function nextStopSignal(abort?: AbortSignal): Promise<Deno.Signal | "abort"> {
  const signals: Deno.Signal[] = Deno.build.os === "windows"
    ? ["SIGINT", "SIGBREAK"]
    : ["SIGINT", "SIGTERM"];
  return new Promise((resolve) => {
    const stop = (why: Deno.Signal | "abort") => {
      for (const [s, l] of listeners) Deno.removeSignalListener(s, l);
      abort?.removeEventListener("abort", onAbort);
      resolve(why);
    };
    const onAbort = () => stop("abort");
    const listeners = signals.map((signal) => {
      const listener = () => stop(signal);
      Deno.addSignalListener(signal, listener);
      return [signal, listener] as const;
    });
    if (abort?.aborted) onAbort();
    else abort?.addEventListener("abort", onAbort, { once: true });
  });
}
