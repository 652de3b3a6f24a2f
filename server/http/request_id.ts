/**
 * Request ids: every response carries `X-Request-Id`, and every log line written while the
 * request is handled carries the same id as `request_id`, so an operator can go from a
 * client's report (or a proxy's access log) to the service's lines for that request.
 *
 * The id is the caller's `X-Request-Id` when it is a sane token (a proxy or the app chose it,
 * and keeping it joins their logs to ours), else a new ULID. The log lines get it through an
 * `AsyncLocalStorage` scope rather than a logger passed down every call: grants, the store
 * and the operator gate log through the one `deps.log` they were built with.
 *
 * @module
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { LogFields, Logger } from "@org/shared";
import type { RequestInfo } from "./router.ts";
import type { Tracing } from "../telemetry/tracing.ts";

/** The header that carries a request id, in both directions. */
export const REQUEST_ID_HEADER = "x-request-id";

/** Longest caller-chosen request id that is kept (longer ones are replaced). */
export const MAX_REQUEST_ID_LENGTH = 128;

/**
 * A sane caller id: letters, digits and `- _ . : / + = @ ~` (UUIDs, ULIDs, base64, the ids
 * proxies and tracing systems generate), nothing that could split a log line or a header.
 */
const SANE_ID = new RegExp(`^[A-Za-z0-9._~:/+=@-]{1,${MAX_REQUEST_ID_LENGTH}}$`);

/**
 * The caller's request id when it may be kept: 1 to {@linkcode MAX_REQUEST_ID_LENGTH}
 * characters from a conservative set; `undefined` for anything else (absent, empty, too long,
 * spaces, quotes, control characters), which then gets a fresh id.
 *
 * @param value the `X-Request-Id` request header
 * @returns the id to use, or `undefined`
 *
 * @example
 * ```ts
 * acceptedRequestId("3f2c9a1e-8b1d-4c1a-9f3e-2a7b6c5d4e3f"); // kept
 * acceptedRequestId("a b"); // undefined
 * ```
 */
export function acceptedRequestId(value: string | null): string | undefined {
  return value !== null && SANE_ID.test(value) ? value : undefined;
}

/** A listener's handler, as `Deno.serve` calls it. */
export type Handler = (req: Request, info: RequestInfo) => Promise<Response>;

/** Request ids for one listener: its scoped logger and the wrapper that assigns ids. */
export interface RequestIds {
  /** `log`, adding `request_id` to every line written while a wrapped handler runs. */
  readonly log: Logger;
  /** `handler` run under a request id, which its response carries as `X-Request-Id`. */
  wrap(handler: Handler): Handler;
}

/**
 * Creates the request-id scope of a listener. Build the handler's dependencies with
 * {@linkcode RequestIds.log} and serve {@linkcode RequestIds.wrap}(handler).
 *
 * @param log the process logger
 * @param newId a fresh id (a ULID) for a request without a sane one
 * @param tracing when tracing is on: every line of a traced request also carries `trace_id`
 * @returns the scoped logger and the wrapper
 *
 * @example
 * ```ts
 * import type { ServiceDeps } from "../deps.ts";
 * import type { IdFactory } from "../store/ids.ts";
 *
 * function withIds(
 *   deps: ServiceDeps,
 *   idFactory: IdFactory,
 *   createRoutes: (deps: ServiceDeps) => (req: Request) => Promise<Response>,
 * ) {
 *   const ids = createRequestIds(deps.log, () => idFactory.ulid());
 *   return ids.wrap(createRoutes({ ...deps, log: ids.log }));
 * }
 * ```
 */
export function createRequestIds(
  log: Logger,
  newId: () => string,
  tracing?: Pick<Tracing, "traceId">,
): RequestIds {
  const current = new AsyncLocalStorage<string>();
  // With tracing, a line also names its trace; decided here, once, not per line.
  const fields = tracing === undefined
    ? (id: string, f?: LogFields): LogFields => ({ request_id: id, ...f })
    : (id: string, f?: LogFields): LogFields => {
      const traceId = tracing.traceId();
      return traceId === undefined
        ? { request_id: id, ...f }
        : { request_id: id, trace_id: traceId, ...f };
    };
  const scoped = (base: Logger): Logger => {
    const at = (level: "debug" | "info" | "warn" | "error") => (msg: string, f?: LogFields) => {
      const id = current.getStore();
      base[level](msg, id === undefined ? f : fields(id, f));
    };
    return {
      debug: at("debug"),
      info: at("info"),
      warn: at("warn"),
      error: at("error"),
      child: (fields) => scoped(base.child(fields)),
    };
  };
  return {
    log: scoped(log),
    wrap: (handler) => (req, info) => {
      const id = acceptedRequestId(req.headers.get(REQUEST_ID_HEADER)) ?? newId();
      return current.run(id, handler, req, info).then((res) => withHeader(res, id));
    },
  };
}

function withHeader(res: Response, id: string): Response {
  try {
    res.headers.set(REQUEST_ID_HEADER, id);
    return res;
  } catch {
    // A response with immutable headers (one passed through from `fetch`): copy it.
    const copy = new Response(res.body, res);
    copy.headers.set(REQUEST_ID_HEADER, id);
    return copy;
  }
}
