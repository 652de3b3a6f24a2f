import { methodNotAllowed, notFound } from "./errors.ts";

/** A request handler for one route. */
export type RouteHandler = (req: Request, info: RequestInfo) => Promise<Response> | Response;

/** What a listener knows about the connection (a subset of `Deno.ServeHandlerInfo`). */
export interface RequestInfo {
  /** The peer's address. */
  readonly remoteAddr: { readonly hostname: string; readonly port: number };
}

/** One route: exact path and method. */
export interface Route {
  readonly method: string;
  readonly path: string;
  readonly handler: RouteHandler;
}

/**
 * Builds a dispatcher over exact-path routes: an unknown path throws 404, a known path with
 * another method throws 405 with `Allow` (HEAD is answered for GET routes).
 *
 * @param routes the route table
 * @returns a function from request to the matching handler's response
 * @throws {OAuthError} 404 or 405
 */
export function createRouter(routes: readonly Route[]): RouteHandler {
  const byPath = new Map<string, Map<string, RouteHandler>>();
  for (const r of routes) {
    const methods = byPath.get(r.path) ?? new Map<string, RouteHandler>();
    methods.set(r.method, r.handler);
    if (r.method === "GET") methods.set("HEAD", r.handler);
    byPath.set(r.path, methods);
  }
  return (req, info) => {
    const methods = byPath.get(new URL(req.url).pathname);
    if (!methods) throw notFound();
    const handler = methods.get(req.method);
    if (!handler) throw methodNotAllowed([...methods.keys()]);
    return handler(req, info);
  };
}
