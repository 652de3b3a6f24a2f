import assert from "node:assert/strict";
import { createJsonLogger } from "@org/shared";
import { insertRows } from "../queries/insert_rows.ts";
import { openLocalTable } from "../queries/local_table.ts";
import { QUERY_NAMES, runNamedQuery } from "../queries/named_queries.ts";
import { KNOWN_ROWS, testRow } from "../queries/_test_rows.ts";
import type { PageViewRow } from "../transform/row.ts";
import { CONTENT_SECURITY_POLICY, createDashboardHandler } from "./handler.ts";

const PORT = 4317;
const ORIGIN = `http://127.0.0.1:${PORT}`;

async function withHandler(
  fn: (
    call: (path: string, init?: RequestInit & { host?: string }) => Promise<Response>,
  ) => Promise<void>,
  logs: string[] = [],
  rows: readonly PageViewRow[] = KNOWN_ROWS,
): Promise<void> {
  using source = await openLocalTable();
  await insertRows(source, rows);
  const handler = createDashboardHandler({
    port: PORT,
    runQuery: (name, range) => runNamedQuery(source, name, range),
    includeBotsByDefault: false,
    site: { siteName: "blog", env: "production" },
    clock: { now: () => Date.parse("2026-02-02T08:00:00Z") },
    log: createJsonLogger({ write: (line) => logs.push(line) }),
  });
  await fn((path, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set("host", init.host ?? `127.0.0.1:${PORT}`);
    return handler(new Request(ORIGIN + path, { ...init, headers }));
  });
}

const range = "from=2026-01-31&to=2026-02-01";

Deno.test("API: a named query answers JSON with no-store and nosniff", async () => {
  await withHandler(async (call) => {
    const res = await call(`/api/queries/top_paths?${range}`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("cache-control"), "no-store");
    assert.equal(res.headers.get("x-content-type-options"), "nosniff");
    assert.match(res.headers.get("content-type")!, /^application\/json/);
    const body = await res.json();
    assert.deepEqual(body.rows[0], { path: "/", views: 3 });
    assert.equal(body.bots, "exclude");
  });
});

Deno.test("API: bots=include overrides the configured default", async () => {
  await withHandler(async (call) => {
    const res = await call(`/api/queries/row_count?${range}&bots=include`);
    assert.equal((await res.json()).total, 10);
  });
});

Deno.test("API: localhost:<port> is accepted as a Host", async () => {
  await withHandler(async (call) => {
    const res = await call(`/api/queries/row_count?${range}`, { host: `localhost:${PORT}` });
    assert.equal(res.status, 200);
    await res.body?.cancel();
  });
});

Deno.test("API: any other Host is refused with 403 (DNS rebinding)", async () => {
  await withHandler(async (call) => {
    for (const host of ["evil.example:4317", "127.0.0.1:4318", "localhost", "127.0.0.1"]) {
      const res = await call(`/api/queries/row_count?${range}`, { host });
      assert.equal(res.status, 403, host);
      assert.equal((await res.json()).error.code, "forbidden_host");
      assert.equal(res.headers.get("cache-control"), "no-store");
    }
  });
});

Deno.test("API: methods other than GET and HEAD get 405 with Allow, the body unread", async () => {
  await withHandler(async (call) => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH", "OPTIONS"]) {
      let pulled = false;
      // highWaterMark 0: the stream is pulled only when someone reads it.
      const body = method === "OPTIONS" ? null : new ReadableStream({
        pull() {
          pulled = true;
        },
      }, { highWaterMark: 0 });
      const res = await call(`/api/queries/row_count?${range}`, { method, body });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get("allow"), "GET, HEAD");
      assert.equal(pulled, false, `${method} body was read`);
      await res.body?.cancel();
    }
  });
});

Deno.test("API: HEAD answers the headers without a body", async () => {
  await withHandler(async (call) => {
    const res = await call(`/api/queries/views?${range}`, { method: "HEAD" });
    assert.equal(res.status, 200);
    assert.equal(res.body, null);
  });
});

Deno.test("API: an unknown query is 404 listing the names", async () => {
  await withHandler(async (call) => {
    const res = await call(`/api/queries/drop_table?${range}`);
    assert.equal(res.status, 404);
    const body = await res.json();
    assert.equal(body.error.code, "unknown_query");
    assert.deepEqual(body.error.queries, [...QUERY_NAMES]);
  });
});

Deno.test("API: an unknown parameter, a bad or inverted range is 400", async () => {
  await withHandler(async (call) => {
    for (
      const q of [
        `${range}&sql=select%201`,
        "from=2026-01-31",
        "from=2026-13-01&to=2026-02-01",
        "from=2026-02-02&to=2026-02-01",
        `${range}&bots=maybe`,
      ]
    ) {
      const res = await call(`/api/queries/views?${q}`);
      assert.equal(res.status, 400, q);
      const body = await res.json();
      assert.equal(body.error.code, "bad_request");
      assert.ok(body.error.problems.length > 0);
    }
  });
});

Deno.test("API: the listing names the queries, the default bots rule and today", async () => {
  await withHandler(async (call) => {
    const body = await (await call("/api/queries")).json();
    assert.equal(body.today, "2026-02-02");
    assert.equal(body.bots, "exclude");
    assert.deepEqual(body.queries.map((q: { name: string }) => q.name), [...QUERY_NAMES]);
  });
});

Deno.test("page: served by the CLI with a CSP that allows only its own origin", async () => {
  await withHandler(async (call) => {
    const res = await call("/");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-security-policy")!, /default-src 'none'/);
    const html = await res.text();
    for (const src of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const url = src[1]!;
      if (url.startsWith("data:")) continue;
      assert.ok(url.startsWith("/assets/"), `${url} is not served by the CLI`);
      const asset = await call(url);
      assert.equal(asset.status, 200, url);
      await asset.body?.cancel();
    }
    const missing = await call("/nope");
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
  });
});

Deno.test("API: a failing query is 500 saying which query failed, and is logged", async () => {
  const logs: string[] = [];
  const handler = createDashboardHandler({
    port: PORT,
    runQuery: () => Promise.reject(new Error("IO Error: connection lost")),
    includeBotsByDefault: false,
    site: { siteName: "blog", env: "production" },
    clock: { now: () => 0 },
    log: createJsonLogger({ write: (line) => logs.push(line) }),
  });
  const res = await handler(
    new Request(`${ORIGIN}/api/queries/views?${range}`, { headers: { host: `127.0.0.1:${PORT}` } }),
  );
  assert.equal(res.status, 500);
  const body = await res.json();
  assert.equal(body.error.code, "query_failed");
  assert.match(body.error.message, /the query views failed: IO Error: connection lost/);
  assert.equal(logs.length, 1);
});

Deno.test("API: a malformed percent-encoding is 400, and every answer carries the same headers", async () => {
  const logs: string[] = [];
  let clockFails = false;
  const handler = createDashboardHandler({
    port: PORT,
    runQuery: () => Promise.reject(new Error("IO Error")),
    includeBotsByDefault: false,
    site: { siteName: "blog", env: "production" },
    clock: {
      now: () => {
        if (clockFails) throw new Error("a bug");
        return 0;
      },
    },
    log: createJsonLogger({ write: (line) => logs.push(line) }),
  });
  const call = (path: string, method = "GET") =>
    handler(new Request(ORIGIN + path, { method, headers: { host: `127.0.0.1:${PORT}` } }));
  const expected = new Headers({
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "referrer-policy": "no-referrer",
    "x-frame-options": "DENY",
  });
  const answers: [string, Response, number][] = [];
  for (const path of ["/api/queries/%ZZ", "/api/queries/%E0%A4%A", "/api/queries/%"]) {
    const res = await call(path);
    assert.equal((await res.clone().json()).error.code, "bad_request", path);
    answers.push([path, res, 400]);
  }
  answers.push(["unknown path", await call("/nope"), 404]);
  answers.push(["wrong method", await call("/api/queries", "PUT"), 405]);
  answers.push(["failed query", await call(`/api/queries/views?${range}`), 500]);
  clockFails = true;
  const escaped = await call("/api/queries");
  assert.equal((await escaped.clone().json()).error.code, "internal_error");
  answers.push(["escaped error", escaped, 500]);
  for (const [what, res, status] of answers) {
    assert.equal(res.status, status, what);
    for (const [name, value] of expected) {
      assert.equal(res.headers.get(name), value, `${what}: ${name}`);
    }
    await res.body?.cancel();
  }
  assert.ok(logs.some((l) => l.includes("a bug")), "the escaped error is logged");
});

Deno.test("CSV: /api/queries/<name>.csv answers the JSON answer's rows as a CSV download", async () => {
  const hostile = [
    testRow("2026-01-31T10:00:00.000Z", {
      uri: "/=cmd",
      status: 404,
      referrer: '=HYPERLINK("https://evil.example/","click"),\nsecond line',
    }),
    testRow("2026-01-31T11:00:00.000Z", { uri: "/a,b", status: 404, referrer: "@SUM(A1)" }),
  ];
  await withHandler(
    async (call) => {
      const res = await call(`/api/queries/not_found.csv?${range}`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "text/csv; charset=utf-8");
      assert.equal(
        res.headers.get("content-disposition"),
        'attachment; filename="not_found_2026-01-31_2026-02-01.csv"',
      );
      assert.equal(res.headers.get("cache-control"), "no-store");
      assert.equal(res.headers.get("content-security-policy"), CONTENT_SECURITY_POLICY);
      assert.equal(
        await res.text(),
        '"path","referrer","requests"\r\n' +
          `"/=cmd","'=HYPERLINK(""https://evil.example/"",""click""),\nsecond line",1\r\n` +
          `"/a,b","'@SUM(A1)",1\r\n`,
      );
      const head = await call(`/api/queries/not_found.csv?${range}`, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get("content-type"), "text/csv; charset=utf-8");
      assert.equal(await head.text(), "");
    },
    [],
    hostile,
  );
});

Deno.test("CSV: every panel's query exports, and refusals answer as for JSON", async () => {
  await withHandler(async (call) => {
    for (const name of QUERY_NAMES) {
      const res = await call(`/api/queries/${name}.csv?${range}&bots=include`);
      assert.equal(res.status, 200, name);
      const [header] = (await res.text()).split("\r\n");
      assert.ok(header!.startsWith('"'), `${name}: ${header}`);
    }
    const unknown = await call(`/api/queries/nope.csv?${range}`);
    assert.equal(unknown.status, 404);
    assert.equal((await unknown.json()).error.code, "unknown_query");
    const bad = await call("/api/queries/views.csv?from=2026-02-02&to=2026-02-01");
    assert.equal(bad.status, 400);
    assert.equal((await bad.json()).error.code, "bad_request");
  });
});
