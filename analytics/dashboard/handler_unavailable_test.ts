import assert from "node:assert/strict";
import { DeployError } from "@org/deploy/plugin";
import { ANALYTICS_ERROR_CODES } from "../section.ts";
import { createJsonLogger } from "@org/shared";
import { QUERY_NAMES } from "../queries/named_queries.ts";
import { createDashboardHandler } from "./handler.ts";

const PORT = 4317;
const ORIGIN = `http://127.0.0.1:${PORT}`;
const HINT = "add --allow-ffi (e.g. --allow-ffi=./node_modules) to the deploy task's flags";

/** A handler whose engine cannot open, as when DuckDB's addon may not load. */
function unavailableHandler(logs: string[]) {
  const handler = createDashboardHandler({
    port: PORT,
    runQuery: () =>
      Promise.reject(
        new DeployError(
          ANALYTICS_ERROR_CODES.queryEngineUnavailable,
          "DuckDB's native addon may not load: Deno needs --allow-ffi for it",
          { hint: HINT },
        ),
      ),
    includeBotsByDefault: false,
    site: { siteName: "blog", env: "production" },
    clock: { now: () => Date.parse("2026-02-02T08:00:00Z") },
    log: createJsonLogger({ write: (line) => logs.push(line) }),
  });
  return (path: string, init: RequestInit & { host?: string } = {}) => {
    const headers = new Headers(init.headers);
    headers.set("host", init.host ?? `127.0.0.1:${PORT}`);
    return handler(new Request(ORIGIN + path, { ...init, headers }));
  };
}

const range = "from=2026-01-31&to=2026-02-01";

Deno.test("dashboard without its engine: the page, assets and query list are served", async () => {
  const call = unavailableHandler([]);
  for (const path of ["/", "/assets/dashboard.js", "/assets/uplot.min.js"]) {
    const res = await call(path);
    assert.equal(res.status, 200, path);
    await res.body?.cancel();
  }
  const meta = await (await call("/api/queries")).json();
  assert.deepEqual(meta.queries.map((q: { name: string }) => q.name), QUERY_NAMES);
});

Deno.test("dashboard without its engine: every refusal answers as with it", async () => {
  const call = unavailableHandler([]);
  const cases: Array<[string, RequestInit & { host?: string }, number, string]> = [
    [`/api/queries/views?${range}`, { host: "evil.example:4317" }, 403, "forbidden_host"],
    [`/api/queries/views?${range}`, { method: "POST", body: "x" }, 405, "method_not_allowed"],
    [`/api/queries/nope?${range}`, {}, 404, "unknown_query"],
    ["/api/queries/views?from=2026-02-01&to=2026-01-01", {}, 400, "bad_request"],
    [`/api/queries/views?${range}&extra=1`, {}, 400, "bad_request"],
    ["/?x=1", {}, 400, "bad_request"],
  ];
  for (const [path, init, status, code] of cases) {
    const res = await call(path, init);
    assert.equal(res.status, status, path);
    assert.equal((await res.json()).error.code, code, path);
  }
});

Deno.test("dashboard without its engine: each query answers 503 with the reason and its hint", async () => {
  const logs: string[] = [];
  const call = unavailableHandler(logs);
  for (const name of QUERY_NAMES) {
    const res = await call(`/api/queries/${name}?${range}`);
    assert.equal(res.status, 503, name);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.deepEqual(await res.json(), {
      error: {
        code: "query_engine_unavailable",
        message: "DuckDB's native addon may not load: Deno needs --allow-ffi for it",
        hint: HINT,
      },
    });
  }
  // The command says it once when opening fails; the queries do not repeat it in the log.
  assert.deepEqual(logs, []);
});
