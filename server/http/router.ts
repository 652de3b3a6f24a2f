import { methodNotAllowed, notFound } from "../errors.ts";

/** Values of the `{name}` segments of a matched route pattern. */
export type RouteParams = Readonly<Record<string, string>>;

/** A request handler for one route. */
export type RouteHandler = (
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
export interface Route {
  readonly method: string;
  readonly path: string;
  readonly handler: RouteHandler;
}

/** The outcome of routing one request. */
export interface RouteMatch {
  /**
   * `METHOD pattern` of the matched route (bounded cardinality, used as a metrics label), or
   * {@linkcode UNMATCHED} when the handler only throws 404/405.
   */
  readonly route: string;
  readonly handler: RouteHandler;
  readonly params: RouteParams;
  /** The request's path ({@linkcode pathOf}), so callers need not parse the URL again. */
  readonly path: string;
}

/** The route label of requests no route serves. */
export const UNMATCHED = "unmatched";

/** A route's handler with its label, built once when the router is. */
interface Target {
  readonly route: string;
  readonly handler: RouteHandler;
}
type Methods = Map<string, Target>;
interface Pattern {
  readonly path: string;
  readonly segments: readonly string[];
  readonly methods: Methods;
}

const NO_PARAMS: RouteParams = Object.freeze({});

/**
 * Builds a matcher over the route table. Matching never throws: an unknown path yields a
 * handler that throws 404, a known path with another method one that throws 405 with `Allow`
 * (HEAD is answered for GET routes). Exact paths are looked up in a map; patterns are tried
 * in table order only when no exact path matched.
 *
 * An exact route's match is built once, with the router: routing a request to it (every
 * `/token` request) allocates nothing, and its label is always the same string, so the
 * metrics' map lookup on it hashes nothing new.
 *
 * @param routes the route table
 * @returns a function from request to its {@linkcode RouteMatch}
 *
 * @example
 * ```ts
 * const match = createRouter([{ method: "GET", path: "/users/{id}", handler }]);
 * const m = match(new Request("http://x/users/usr_1")); // m.params.id === "usr_1"
 * ```
 */
export function createRouter(routes: readonly Route[]): (req: Request) => RouteMatch {
  const exact = new Map<string, Map<string, RouteMatch>>();
  const patterns: Pattern[] = [];
  for (const r of routes) {
    const add = (method: string) => {
      const route = `${method} ${r.path}`;
      if (r.path.includes("{")) {
        let p = patterns.find((x) => x.path === r.path);
        if (!p) {
          p = { path: r.path, segments: r.path.split("/"), methods: new Map() };
          patterns.push(p);
        }
        p.methods.set(method, { route, handler: r.handler });
      } else {
        const methods = exact.get(r.path) ?? new Map<string, RouteMatch>();
        exact.set(r.path, methods);
        methods.set(method, { route, handler: r.handler, params: NO_PARAMS, path: r.path });
      }
    };
    add(r.method);
    if (r.method === "GET") add("HEAD");
  }
  return (req) => {
    const path = pathOf(req.url);
    const methods = exact.get(path);
    if (methods) {
      return methods.get(req.method) ?? notAllowed([...methods.keys()], path);
    }
    const found = matchPattern(patterns, path);
    if (!found) {
      return { route: UNMATCHED, handler: throwing(notFound), params: NO_PARAMS, path };
    }
    const target = found.methods.get(req.method);
    if (!target) return notAllowed([...found.methods.keys()], path);
    return { route: target.route, handler: target.handler, params: found.params, path };
  };
}

function notAllowed(allow: readonly string[], path: string): RouteMatch {
  return {
    route: UNMATCHED,
    handler: throwing(() => methodNotAllowed(allow)),
    params: NO_PARAMS,
    path,
  };
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
): { methods: Methods; params: RouteParams } | undefined {
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
    return { methods: p.methods, params };
  }
  return undefined;
}

function throwing(make: () => Error): RouteHandler {
  return () => {
    throw make();
  };
}
