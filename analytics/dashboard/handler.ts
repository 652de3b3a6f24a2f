/**
 * The dashboard's HTTP handler: the page and its assets, and the JSON API
 * `GET /api/queries/<name>?from=YYYY-MM-DD&to=YYYY-MM-DD&bots=include|exclude` over the named
 * queries, with the same rows as CSV at `/api/queries/<name>.csv` (same parameters, a download).
 * It is a function of its dependencies; only `serve.ts` binds a socket.
 *
 * The page and every refusal answer without the query engine; a query the engine cannot run
 * (DuckDB, an extension, credentials or the table unavailable) answers 503 with the reason's
 * code, message and hint.
 *
 * Every answer is `no-store` and `nosniff`; only GET and HEAD are served (405 with `Allow`);
 * a `Host` other than `127.0.0.1:<port>` or `localhost:<port>` is refused with 403, so a page
 * on another site cannot reach the API through DNS rebinding; request bodies are never read.
 *
 * @module
 */
import { DeployError } from "@org/deploy/plugin";
import type { Logger } from "@org/shared";
import {
  isQueryName,
  NAMED_QUERIES,
  QUERY_NAMES,
  type QueryName,
  type QueryResult,
} from "../queries/named_queries.ts";
import { CSV_CONTENT_TYPE, exportFileName, toCsv } from "../queries/csv.ts";
import { parseQueryRange, type QueryRange, utcDay } from "../queries/range.ts";
import { PAGE_ASSETS } from "./assets.ts";

/** What the handler needs. */
export interface DashboardDeps {
  /** The port the server listens on (for the `Host` check). */
  readonly port: number;
  /**
   * Runs a named query; a `DeployError` means the engine cannot run here (DuckDB, an
   * extension, credentials or the table), and its code, message and hint reach the page.
   */
  runQuery(name: QueryName, range: QueryRange): Promise<QueryResult>;
  /** Whether bots count unless a request says otherwise (`analytics.bots`). */
  readonly includeBotsByDefault: boolean;
  /** The site and environment, shown in the page title. */
  readonly site: { readonly siteName: string; readonly env: string };
  /** The clock: "today" (UTC) for the page's default range. */
  readonly clock: { now(): number };
  /** The log for failed queries. */
  readonly log: Logger;
}

/** The methods the dashboard answers. */
export const ALLOWED_METHODS = "GET, HEAD";

/**
 * The Content-Security-Policy of every answer: the page may load only its own scripts and
 * styles and talk only to its own origin, so nothing it shows can reach another server.
 */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; " +
  "style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; " +
  "form-action 'none'; frame-ancestors 'none'";

const COMMON_HEADERS: Readonly<Record<string, string>> = {
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "referrer-policy": "no-referrer",
  "x-frame-options": "DENY",
};

/**
 * Makes the dashboard's handler.
 *
 * @param deps the queries, port, defaults and clock
 * @returns the request handler
 *
 * @example
 * ```ts
 * import type { DashboardDeps } from "./handler.ts";
 *
 * const serveDashboard = (deps: DashboardDeps) =>
 *   Deno.serve({ hostname: "127.0.0.1", port: deps.port }, createDashboardHandler(deps));
 * ```
 */
export function createDashboardHandler(deps: DashboardDeps): (req: Request) => Promise<Response> {
  const hosts = new Set([`127.0.0.1:${deps.port}`, `localhost:${deps.port}`]);
  return async (req) => {
    const out = answers(req.method === "HEAD");
    try {
      return await route(req, out);
    } catch (err) {
      // Whatever escapes (a bug, a request no check foresaw) still answers with the dashboard's
      // headers; its detail goes to the log only.
      deps.log.error("dashboard request failed", {
        path: new URL(req.url).pathname,
        error: String(err),
      });
      return out.fail(500, "internal_error", "the dashboard could not answer this request");
    }
  };

  async function route(req: Request, { send, json, fail }: Answers): Promise<Response> {
    const head = req.method === "HEAD";
    if (!hosts.has((req.headers.get("host") ?? "").toLowerCase())) {
      return fail(403, "forbidden_host", `the dashboard answers only ${[...hosts].join(" or ")}`);
    }
    if (req.method !== "GET" && !head) {
      return fail(405, "method_not_allowed", `only ${ALLOWED_METHODS}`, {}, {
        allow: ALLOWED_METHODS,
      });
    }
    const url = new URL(req.url);
    const asset = PAGE_ASSETS[url.pathname];
    if (asset) {
      if (url.search !== "") return fail(400, "bad_request", "the page takes no parameters");
      return send(200, asset.body, asset.type);
    }
    if (url.pathname === "/api/queries") {
      return json(200, {
        site: deps.site,
        today: utcDay(deps.clock.now()),
        bots: deps.includeBotsByDefault ? "include" : "exclude",
        queries: QUERY_NAMES.map((n) => {
          const { name, title, description, columns } = NAMED_QUERIES[n];
          return { name, title, description, columns };
        }),
      });
    }
    const match = /^\/api\/queries\/([^/]+)$/.exec(url.pathname);
    if (!match) return fail(404, "not_found", `no such page: ${url.pathname}`);
    const segment = decodePathSegment(match[1]!);
    if (segment === undefined) {
      return fail(400, "bad_request", "the path is not valid percent-encoded UTF-8");
    }
    const csv = segment.endsWith(".csv");
    const name = csv ? segment.slice(0, -".csv".length) : segment;
    if (!isQueryName(name)) {
      return fail(404, "unknown_query", `no query named "${name}"`, { queries: QUERY_NAMES });
    }
    const parsed = parseQueryRange(url.searchParams, deps.includeBotsByDefault);
    if ("errors" in parsed) {
      return fail(400, "bad_request", parsed.errors.join("; "), { problems: parsed.errors });
    }
    try {
      const result = await deps.runQuery(name, parsed.range);
      if (!csv) return json(200, result);
      return send(200, toCsv(NAMED_QUERIES[name].columns, result.rows), CSV_CONTENT_TYPE, {
        "content-disposition": `attachment; filename="${exportFileName(result, "csv")}"`,
      });
    } catch (err) {
      if (err instanceof DeployError) {
        // Said once by the command when opening failed; the page shows it in every panel.
        return fail(503, err.code, err.message, { hint: err.hint });
      }
      const message = err instanceof Error ? err.message : String(err);
      deps.log.error("dashboard query failed", { query: name, ...parsed.range, error: message });
      return fail(500, "query_failed", `the query ${name} failed: ${message}`);
    }
  }
}

/** Builders of the dashboard's answers, each with {@linkcode COMMON_HEADERS}. */
interface Answers {
  send(status: number, body: string, type: string, extra?: HeadersInit): Response;
  json(status: number, value: unknown, extra?: HeadersInit): Response;
  fail(status: number, code: string, message: string, more?: object, extra?: HeadersInit): Response;
}

/** {@linkcode Answers} for one request; a HEAD request gets the headers without the body. */
function answers(head: boolean): Answers {
  const send = (status: number, body: string, type: string, extra: HeadersInit = {}) =>
    new Response(head ? null : body, {
      status,
      headers: { ...COMMON_HEADERS, "content-type": type, ...extra },
    });
  const json = (status: number, value: unknown, extra: HeadersInit = {}) =>
    send(status, JSON.stringify(value), "application/json; charset=utf-8", extra);
  const fail = (status: number, code: string, message: string, more = {}, extra = {}) =>
    json(status, { error: { code, message, ...more } }, extra);
  return { send, json, fail };
}

/** A path segment decoded, or `undefined` when its percent-encoding is malformed (`%ZZ`, `%`). */
function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
