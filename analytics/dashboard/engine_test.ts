import assert from "node:assert/strict";
import { DeployError } from "@org/deploy/plugin";
import { ANALYTICS_ERROR_CODES } from "../section.ts";
import { openLocalTable } from "../queries/local_table.ts";
import type { PageViewSource } from "../queries/source.ts";
import { createDashboardEngine, engineError } from "./engine.ts";

const unavailable = () =>
  new DeployError(
    ANALYTICS_ERROR_CODES.queryEngineUnavailable,
    'the DuckDB extension "iceberg" is not installed',
    {
      hint: "install it",
    },
  );

Deno.test("dashboard engine: concurrent queries share one open, and later ones reuse it", async () => {
  let opens = 0;
  using engine = createDashboardEngine(() => {
    opens++;
    return openLocalTable();
  });
  const [a, b] = await Promise.all([engine.source(), engine.source()]);
  assert.equal(a, b);
  assert.equal(await engine.source(), a);
  assert.equal(opens, 1);
});

Deno.test("dashboard engine: a failed open reaches every waiting query, and the next query retries", async () => {
  const outcomes: Array<() => Promise<PageViewSource>> = [
    () => Promise.reject(unavailable()),
    () => openLocalTable(),
  ];
  let opens = 0;
  using engine = createDashboardEngine(() => outcomes[opens++]!());
  const failed = await Promise.allSettled([engine.source(), engine.source()]);
  assert.equal(opens, 1);
  for (const r of failed) {
    assert.equal(r.status, "rejected");
    assert.ok(r.reason instanceof DeployError);
    assert.equal(r.reason.code, "query_engine_unavailable");
    assert.equal(r.reason.hint, "install it");
  }
  const source = await engine.source();
  assert.equal(opens, 2);
  assert.match(source.relation, /page_views/);
});

Deno.test("engineError() keeps a DeployError and names any other failure's message", () => {
  const own = unavailable();
  assert.equal(engineError(own), own);
  const wrapped = engineError(new Error("IO Error: cannot open file"));
  assert.equal(wrapped.code, "query_engine_unavailable");
  assert.match(wrapped.message, /the query engine could not open: IO Error: cannot open file/);
  assert.notEqual(wrapped.hint, "");
});

Deno.test("dashboard engine: stopping closes the source, even one still opening", async () => {
  const closed: string[] = [];
  const fake = (name: string): PageViewSource =>
    ({
      relation: name,
      [Symbol.dispose]: () => closed.push(name),
    }) as unknown as PageViewSource;
  const first = createDashboardEngine(() => Promise.resolve(fake("opened")));
  await first.source();
  first[Symbol.dispose]();
  assert.deepEqual(closed, ["opened"]);

  let finish: (s: PageViewSource) => void = () => {};
  const late = createDashboardEngine(() => new Promise((resolve) => finish = resolve));
  const pending = late.source();
  late[Symbol.dispose]();
  finish(fake("late"));
  await pending;
  assert.deepEqual(closed, ["opened", "late"]);
});
