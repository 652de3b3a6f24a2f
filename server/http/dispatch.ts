/**
 * What every request on either listener goes through around its route: a request id (the
 * `X-Request-Id` answer header and the `request_id` of every log line), routing, the one
 * error-to-response mapping, the headers of the route's group, and the request metrics.
 *
 * @module
 */
import type { ServiceDeps } from "../deps.ts";
import type { Listener } from "../metrics/metrics.ts";
import { createIdFactory, type IdFactory } from "../store/ids.ts";
import { errorResponse } from "./errors.ts";
import { createRequestIds, type Handler } from "./request_id.ts";
import type { RequestInfo, RouteMatch } from "./router.ts";
import type { Tracing } from "../telemetry/tracing.ts";

/** A request let in past a listener's limits; `leave` gives back what it held. */
export interface Admitted {
  leave(): void;
}

/** How one listener answers, given its request-scoped dependencies. */
export interface ListenerRoutes {
  /** The listener's router. */
  readonly match: (req: Request) => RouteMatch;
  /**
   * Runs after routing and before the handler; may throw to refuse the request (429). What it
   * returns is left when the request is answered, whatever the outcome.
   */
  readonly admit?: (
    m: RouteMatch,
    req: Request,
    info: RequestInfo,
  ) => Promise<Admitted | undefined>;
  /** A last touch on every answer, error answers included (CORS headers). */
  readonly finish?: (m: RouteMatch, req: Request, res: Response) => void;
}

/**
 * Builds a listener's handler. `build` gets the service with its request-scoped logger (every
 * line it writes while a request runs carries that request's `request_id`) and an id factory.
 *
 * @param listener the metrics label of the listener
 * @param service the service dependencies
 * @param build the listener's routes, built once
 * @returns a `fetch`-style handler for `Deno.serve`
 *
 * @example
 * ```ts
 * import type { ServiceDeps } from "../deps.ts";
 * import { createRouter, type Route } from "./router.ts";
 *
 * const listen = (deps: ServiceDeps, routesOf: (d: ServiceDeps) => Route[]) =>
 *   createListenerHandler("public", deps, (d) => ({ match: createRouter(routesOf(d)) }));
 * ```
 */
export function createListenerHandler(
  listener: Listener,
  service: ServiceDeps,
  build: (deps: ServiceDeps, ids: IdFactory) => ListenerRoutes,
): Handler {
  const ids = createIdFactory(service.clock, service.random);
  const { tracing } = service;
  const requestIds = createRequestIds(service.log, ids.ulid, tracing);
  const deps: ServiceDeps = { ...service, log: requestIds.log };
  const routes = build(deps, ids);
  const { match, admit } = routes;
  // Decided once: without tracing the listener runs exactly its own `finish`.
  const finish = tracing === undefined
    ? routes.finish
    : namingSpans(listener, tracing, routes.finish);
  const handler: Handler = requestIds.wrap(async (req, info) => {
    const started = performance.now();
    const m = match(req);
    let res: Response;
    let held: Admitted | undefined;
    try {
      held = await admit?.(m, req, info);
      res = await m.handler(req, info, m.params);
    } catch (err) {
      res = errorResponse(err, deps.log);
    } finally {
      held?.leave();
    }
    finish?.(m, req, res);
    if (m.headers) { for (const [k, v] of Object.entries(m.headers)) res.headers.set(k, v); }
    deps.metrics.observeRequest(
      listener,
      m.route,
      res.status,
      (performance.now() - started) / 1000,
    );
    return res;
  });
  // A tracer the runtime does not make server spans for (the SDK's) makes them here, around
  // the request-id scope so that every log line of a sampled request names its trace.
  const serve = tracing?.serve;
  return serve === undefined ? handler : (req, info) => serve(req, handler, info);
}

/**
 * `finish`, then the request's server span (Deno's or the SDK tracer's, one per sampled
 * request, named after the method only) named after the route (`POST /token`) and given the route pattern and the listener;
 * Deno adds the status.
 */
function namingSpans(
  listener: Listener,
  tracing: Tracing,
  finish: ListenerRoutes["finish"],
): NonNullable<ListenerRoutes["finish"]> {
  const active = tracing.active;
  return (m, req, res) => {
    finish?.(m, req, res);
    // An unsampled request has no span to name: nothing is built for it.
    if (active !== undefined && !active()) return;
    const attributes = { "token_exchange.listener": listener };
    // `m.route` is `METHOD /pattern`, or `unmatched` (then the span keeps its method name).
    const pattern = m.route.split(" ")[1];
    if (pattern === undefined) tracing.annotate(attributes);
    else tracing.annotate({ ...attributes, "http.route": pattern }, m.route);
  };
}
