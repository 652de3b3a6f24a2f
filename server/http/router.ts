import { methodNotAllowed, notFound } from "../errors.ts";

/** Values of the `{name}` segments of a matched route pattern. */
export type RouteParams = Readonly<Record<string, string>>;

/**
 * A request handler for one route. `context` is what the route's group guard established
 * (the internal API's operator); routes outside a guarded group get none.
 */
export type RouteHandler<C = void> = (
  req: Request,
  info: RequestInfo,
  params: RouteParams,
  context: C,
) => Promise<Response> | Response;

/** A matched route's handler, its context bound: what a listener calls. */
export type BoundHandler = (
  req: Request,
  info: RequestInfo,
  params: RouteParams,
) => Promise<Response> | Response;

/** What a listener knows about the connection (a subset of `Deno.ServeHandlerInfo`). */
export interface RequestInfo {
  /** The peer's address. */
  readonly remoteAddr: { readonly hostname: string; readonly port: number };
}

/**
 * One route: a method and a path, either exact (`/token`) or with `{name}` segments
 * (`/internal/users/{id}`) that each match one non-empty path segment.
 */
export interface Route<C = void> {
  readonly method: string;
  readonly path: string;
  readonly handler: RouteHandler<C>;
}

/** Establishes a group's context from the request, or throws (401, 429) to refuse it. */
export type Guard<C> = (req: Request, info: RequestInfo) => Promise<C>;

/**
 * Routes that own a part of the path space: `prefix` itself and every path below `prefix/`
 * (`""`: every path no other group owns). A path of the group that no route serves answers
 * 404 or 405 after the group's guard, so a caller the guard refuses learns nothing about
 * which routes exist. Build a guarded one with {@linkcode guardedGroup}.
 */
export interface RouteGroup {
  readonly prefix: string;
  readonly routes: readonly Route[];
  /** Runs before every answer of the group, its 404 and 405 included. */
  readonly guard?: Guard<unknown>;
  /** Set on every answer of the group, its errors included (the console's security headers). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * A group whose every route runs after `guard`, and gets what it returned as its context.
 *
 * @param prefix the paths the group owns (see {@linkcode RouteGroup})
 * @param guard what admits a request and names its context
 * @param routes the group's routes
 * @returns the group, for {@linkcode createRouter}
 *
 * @example
 * ```ts
 * import type { OperatorPrincipal } from "../auth/operator_gate.ts";
 *
 * const gate = () => Promise.resolve<OperatorPrincipal>({
 *   method: "operator_token",
 *   subject: "alice",
 *   peer: "127.0.0.1",
 * });
 * const api = guardedGroup("", () => gate(), [
 *   { method: "GET", path: "/whoami", handler: (_req, _info, _p, operator) => Response.json(operator) },
 * ]);
 * ```
 */
export function guardedGroup<C>(
  prefix: string,
  guard: Guard<C>,
  routes: readonly Route<C>[],
): RouteGroup {
  return { prefix, guard, routes: guardRoutes(guard, routes) };
}

/**
 * Maps what a guarded route or its guard threw to the group's own answer; `context` is what
 * the guard established, `undefined` when the guard itself refused.
 */
export type Recover<C> = (err: unknown, context: C | undefined) => Response | Promise<Response>;

/**
 * Routes that each run after `guard` and get what it returned as their context: the guarded
 * part of a group whose other routes are open (the console's sign-in beside its pages). With
 * `recover`, whatever the guard or a route throws is answered by it, in one place for the
 * group; without, it goes to the listener's error mapping.
 *
 * @param guard what admits a request and names its context
 * @param routes the guarded routes
 * @param recover the group's error mapping, if it has its own
 * @returns the routes, their context bound
 *
 * @example
 * ```ts
 * const guard = (req: Request) => Promise.resolve({ user: req.headers.get("x-user") ?? "" });
 * const routes = guardRoutes(guard, [
 *   { method: "GET", path: "/me", handler: (_req, _info, _p, c) => new Response(c.user) },
 * ], (err) => new Response(String(err), { status: 400 }));
 * ```
 */
export function guardRoutes<C>(
  guard: Guard<C>,
  routes: readonly Route<C>[],
  recover?: Recover<C>,
): Route[] {
  return routes.map((r) => ({
    method: r.method,
    path: r.path,
    handler: recover === undefined
      ? async (req, info, params) => await r.handler(req, info, params, await guard(req, info))
      : async (req, info, params) => {
        let context: C | undefined;
        try {
          context = await guard(req, info);
          return await r.handler(req, info, params, context);
        } catch (err) {
          return await recover(err, context);
        }
      },
  }));
}

/** The outcome of routing one request. */
export interface RouteMatch {
  /**
   * `METHOD pattern` of the matched route (bounded cardinality, used as a metrics label), or
   * {@linkcode UNMATCHED} when the handler only throws 404/405.
   */
  readonly route: string;
  readonly handler: BoundHandler;
  readonly params: RouteParams;
  /** The request's path ({@linkcode pathOf}), so callers need not parse the URL again. */
  readonly path: string;
  /**
   * The path as the route table writes it (`/sessions/{id}` for `/sessions/ses_1`), also when
   * the method is not allowed; the request's path when no route has it. What per-path rules
   * (rate limit, CORS) are keyed by.
   */
  readonly pattern: string;
  /** The headers of the group the path belongs to, for every answer ({@linkcode RouteGroup}). */
  readonly headers?: Readonly<Record<string, string>> | undefined;
}

/** The route label of requests no route serves. */
export const UNMATCHED = "unmatched";

/** A route's handler with its label, built once when the router is. */
interface Target {
  readonly route: string;
  readonly handler: BoundHandler;
}
type Methods = Map<string, Target>;
/** What a path's group adds to its answers. */
interface Owner {
  readonly guard?: Guard<unknown> | undefined;
  readonly headers?: Readonly<Record<string, string>> | undefined;
}
interface Pattern {
  readonly path: string;
  readonly segments: readonly string[];
  readonly methods: Methods;
  readonly owner: Owner;
}
interface ExactPath {
  readonly methods: Map<string, RouteMatch>;
  readonly owner: Owner;
}

const NO_PARAMS: RouteParams = Object.freeze({});

/**
 * Builds a matcher over the route table. Matching never throws: an unknown path yields a
 * handler that throws 404, a known path with another method one that throws 405 with `Allow`
 * (HEAD is answered for GET routes); in a guarded group (`groups`) both only after the guard.
 * Exact paths are looked up in a map; patterns are tried in table order only when no exact
 * path matched.
 *
 * An exact route's match is built once, with the router: routing a request to it (every
 * `/token` request) allocates nothing, and its label is always the same string, so the
 * metrics' map lookup on it hashes nothing new.
 *
 * @param routes routes owning only their own paths, without a guard
 * @param groups routes owning a part of the path space (see {@linkcode RouteGroup})
 * @returns a function from request to its {@linkcode RouteMatch}
 *
 * @example
 * ```ts
 * const handler = () => Promise.resolve(new Response("user"));
 * const match = createRouter([{ method: "GET", path: "/users/{id}", handler }]);
 * const m = match(new Request("http://x/users/usr_1")); // m.params.id === "usr_1"
 * ```
 */
export function createRouter(
  routes: readonly Route[],
  groups: readonly RouteGroup[] = [],
): (req: Request) => RouteMatch {
  const exact = new Map<string, ExactPath>();
  const patterns: Pattern[] = [];
  const add = (r: Route, owner: Owner, method: string) => {
    const route = `${method} ${r.path}`;
    const handler: BoundHandler = r.handler;
    if (r.path.includes("{")) {
      let p = patterns.find((x) => x.path === r.path);
      if (!p) {
        p = { path: r.path, segments: r.path.split("/"), methods: new Map(), owner };
        patterns.push(p);
      }
      p.methods.set(method, { route, handler });
    } else {
      const at = exact.get(r.path) ?? { methods: new Map<string, RouteMatch>(), owner };
      exact.set(r.path, at);
      const { headers } = owner;
      at.methods.set(method, {
        route,
        handler,
        params: NO_PARAMS,
        path: r.path,
        pattern: r.path,
        headers,
      });
    }
  };
  for (const group of [{ routes, guard: undefined }, ...groups]) {
    for (const r of group.routes) {
      add(r, group, r.method);
      if (r.method === "GET") add(r, group, "HEAD");
    }
  }
  // The most specific owner first.
  const owners = [...groups].sort((a, b) => b.prefix.length - a.prefix.length);
  const ownerOf = (path: string) =>
    owners.find((g) => path === g.prefix || path.startsWith(`${g.prefix}/`));
  return (req) => {
    const path = pathOf(req.url);
    const at = exact.get(path);
    if (at) {
      return at.methods.get(req.method) ?? notAllowed([...at.methods.keys()], path, path, at.owner);
    }
    const found = matchPattern(patterns, path);
    if (!found) return refused(notFound, path, path, ownerOf(path) ?? {});
    const { owner, methods, path: pattern } = found.pattern;
    const target = methods.get(req.method);
    if (!target) return notAllowed([...methods.keys()], path, pattern, owner);
    const { route, handler } = target;
    return { route, handler, params: found.params, path, pattern, headers: owner.headers };
  };
}

function notAllowed(
  allow: readonly string[],
  path: string,
  pattern: string,
  owner: Owner,
): RouteMatch {
  return refused(() => methodNotAllowed(allow), path, pattern, owner);
}

/** The match of a request only answered by `make()` (after the guard of the path's group). */
function refused(
  make: () => Error,
  path: string,
  pattern: string,
  { guard, headers }: Owner,
): RouteMatch {
  const handler: BoundHandler = guard === undefined
    ? () => {
      throw make();
    }
    : async (req, info) => {
      await guard(req, info);
      throw make();
    };
  return { route: UNMATCHED, handler, params: NO_PARAMS, path, pattern, headers };
}

/**
 * The path of an absolute request URL without parsing the whole URL (the common case on the
 * hot path); dot segments and escapes go through the URL parser.
 *
 * @param url an absolute URL (`req.url`)
 * @returns its pathname
 */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start < 0) return "/";
  let end = url.length;
  const q = url.indexOf("?", start);
  if (q >= 0) end = q;
  const h = url.indexOf("#", start);
  if (h >= 0 && h < end) end = h;
  const path = url.slice(start, end);
  // Dot segments and escapes: let the URL parser normalise them as before.
  return path.includes("/.") || path.includes("%") ? new URL(url).pathname : path;
}

function matchPattern(
  patterns: readonly Pattern[],
  path: string,
): { pattern: Pattern; params: RouteParams } | undefined {
  const parts = path.split("/");
  outer: for (const p of patterns) {
    if (p.segments.length !== parts.length) continue;
    const params: Record<string, string> = {};
    for (let i = 0; i < parts.length; i++) {
      const want = p.segments[i]!;
      const got = parts[i]!;
      if (want.startsWith("{")) {
        if (got === "") continue outer;
        try {
          params[want.slice(1, -1)] = decodeURIComponent(got);
        } catch {
          continue outer;
        }
      } else if (want !== got) continue outer;
    }
    return { pattern: p, params };
  }
  return undefined;
}
