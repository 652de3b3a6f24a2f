import type { DepsWith } from "../deps.ts";
import { NO_STORE } from "../http/json_response.ts";

/** How long `/health` waits for the store before calling it unavailable (ms). */
export const HEALTH_STORE_TIMEOUT_MS = 2000;

/**
 * `GET /health`, served without authentication on every listener: 200
 * `{status: "ok", store: "ok"}` when the store answers a read within
 * {@linkcode HEALTH_STORE_TIMEOUT_MS}, else 503 `{status: "unavailable", store: "unavailable"}`
 * (the cause is logged only).
 *
 * @param deps the store and logger
 * @returns the response (`Cache-Control: no-store`)
 */
export async function health(deps: DepsWith<"log", "ping">): Promise<Response> {
  const headers = NO_STORE;
  try {
    await withTimeout(deps.store.ping(), HEALTH_STORE_TIMEOUT_MS);
    return Response.json({ status: "ok", store: "ok" }, { headers });
  } catch (err) {
    deps.log.error("health check: store does not answer", { err });
    return Response.json({ status: "unavailable", store: "unavailable" }, {
      status: 503,
      headers,
    });
  }
}

function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
