/**
 * The backfill against the CloudWatch Logs fake (the real SDK client, FilterLogEvents paging)
 * over several days, into a local DuckDB table of the pipeline's schema: inserted and skipped
 * per day, run twice, and resumed after an interruption.
 */
import assert from "node:assert/strict";
import { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import { DeployError } from "@org/deploy/plugin";
import { backfillDays } from "../../analytics/backfill/days.ts";
import { dayLogMessages } from "../../analytics/backfill/log_events.ts";
import { type BackfillDay, runBackfill } from "../../analytics/backfill/run.ts";
import { insertRows } from "../../analytics/queries/insert_rows.ts";
import { openLocalTable } from "../../analytics/queries/local_table.ts";
import { runNamedQuery } from "../../analytics/queries/named_queries.ts";
import type { PageViewSource } from "../../analytics/queries/source.ts";
import { testRow } from "../../analytics/queries/_test_rows.ts";
import {
  PAGE_VIEW,
  pageViewLogEvent,
  TEST_SECRET,
} from "../../analytics/transform/_test_records.ts";
import { dailySalt, visitorKey } from "../../analytics/transform/visitor_key.ts";
import { startLogsFake } from "../fakes/logs.ts";

const GROUP = "/blog/production/cloudfront";
const CREATED = Date.parse("2026-02-03T15:00:00Z");
const UA = "Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0";

const record = pageViewLogEvent;

/** Events per day: 2026-01-29 (outside the window), four days inside, 2026-02-03 (after). */
const EVENTS = [
  record("2026-01-29T12:00:00Z"),
  record("2026-01-30T08:00:00Z"),
  record("2026-01-30T23:30:00Z", { "c-ip": "198.51.100.1" }),
  record("2026-01-31T00:10:00Z"),
  record("2026-01-31T09:00:00Z", { "cs-uri-stem": "/about/" }),
  record("2026-01-31T10:00:00Z", { "cs(User-Agent)": "Googlebot/2.1" }),
  { timestamp: Date.parse("2026-01-31T11:00:00Z"), message: "not json" },
  record("2026-02-01T10:00:00Z"),
  record("2026-02-02T10:00:00Z"),
  record("2026-02-02T11:00:00Z"),
  record("2026-02-03T10:00:00Z"),
];

async function world(
  fn: (ctx: {
    logs: ReturnType<typeof startLogsFake>;
    source: PageViewSource;
    run: (onDay?: (r: BackfillDay) => void) => Promise<BackfillDay[]>;
  }) => Promise<void>,
) {
  await using logs = startLogsFake({ filterPageSize: 2 });
  logs.state.append(GROUP, "CloudFront_E123", EVENTS);
  const client = new CloudWatchLogsClient({
    region: "us-east-1",
    endpoint: logs.endpoint,
    credentials: { accessKeyId: "FAKEACCESSKEY", secretAccessKey: "FAKESECRET" },
    maxAttempts: 1,
  });
  using source = await openLocalTable();
  try {
    const days = backfillDays(CREATED, 4);
    await fn({
      logs,
      source,
      run: (onDay) =>
        runBackfill(
          days,
          {
            source,
            secret: TEST_SECRET,
            readMessages: (day) => dayLogMessages(client, GROUP, day),
            ...(onDay ? { onDay } : {}),
          },
        ),
    });
  } finally {
    client.destroy();
  }
}

const count = async (source: PageViewSource, from = "2026-01-01", to = "2026-03-01") =>
  (await runNamedQuery(source, "row_count", { from, to, includeBots: true })).total;

Deno.test("backfillDays() is the cloudfrontDays whole UTC days before the delivery's day", () => {
  assert.deepEqual(backfillDays(CREATED, 4), [
    "2026-01-30",
    "2026-01-31",
    "2026-02-01",
    "2026-02-02",
  ]);
  assert.equal(backfillDays(CREATED, 90).length, 90);
  assert.equal(backfillDays(CREATED, 90)[0], "2025-11-05");
});

Deno.test("backfill: inserts each day once, skips days with rows, and a second run inserts nothing", async () => {
  await world(async ({ logs, source, run }) => {
    // The pipeline already wrote a row for 2026-02-01.
    await insertRows(source, [testRow("2026-02-01T16:00:00.000Z")]);

    const first = await run();
    assert.deepEqual(first, [
      { day: "2026-01-30", result: "inserted", rows: 2, unmapped: 0 },
      { day: "2026-01-31", result: "inserted", rows: 3, unmapped: 1 },
      { day: "2026-02-01", result: "skipped", rows: 1, unmapped: 0 },
      { day: "2026-02-02", result: "inserted", rows: 2, unmapped: 0 },
    ]);
    assert.ok(logs.callsOf("FilterLogEvents").length > 3, "the reader followed nextToken");
    // Nothing from before the window or from the delivery's own day.
    assert.equal(await count(source, "2026-01-29", "2026-01-29"), 0);
    assert.equal(await count(source, "2026-02-03", "2026-02-03"), 0);
    assert.equal(await count(source), 8);

    const second = await run();
    assert.deepEqual(second.map((d) => [d.day, d.result, d.rows]), [
      ["2026-01-30", "skipped", 2],
      ["2026-01-31", "skipped", 3],
      ["2026-02-01", "skipped", 1],
      ["2026-02-02", "skipped", 2],
    ]);
    assert.equal(await count(source), 8);
  });
});

Deno.test("backfill: rows go through the pipeline's transform and that day's salt", async () => {
  await world(async ({ source, run }) => {
    await run();
    const reader = await source.connection.runAndReadAll(
      "SELECT strftime(day, '%Y-%m-%d') AS day, uri, visitor_key, is_bot FROM page_views " +
        "WHERE day = DATE '2026-01-31' ORDER BY event_time",
    );
    const rows = reader.getRowObjectsJS();
    const ip = PAGE_VIEW["c-ip"]!;
    const key = visitorKey(dailySalt(TEST_SECRET, "2026-01-31"), ip, UA);
    assert.deepEqual(rows[0], {
      day: "2026-01-31",
      uri: "/posts/hello/",
      visitor_key: key,
      is_bot: false,
    });
    assert.equal(rows[1]!.uri, "/about/");
    assert.equal(rows[2]!.is_bot, true);
    // The same visitor on another day has another key: the salt is the day's.
    const other = await source.connection.runAndReadAll(
      "SELECT visitor_key FROM page_views WHERE day = DATE '2026-02-02' LIMIT 1",
    );
    assert.notEqual(other.getRowObjectsJS()[0]!.visitor_key, key);
    assert.equal(
      other.getRowObjectsJS()[0]!.visitor_key,
      visitorKey(dailySalt(TEST_SECRET, "2026-02-02"), ip, UA),
    );
  });
});

Deno.test("backfill: an interruption leaves whole days, and re-running resumes at the next", async () => {
  await world(async ({ logs, source, run }) => {
    const err = await run((r) => {
      // The log read of the day after 2026-01-31 fails (the service is unavailable).
      if (r.day === "2026-01-31") {
        logs.fail("FilterLogEvents", { code: "ServiceUnavailableException", status: 503 });
      }
    }).then(() => undefined, (e: unknown) => e);
    assert.ok(err instanceof DeployError, String(err));
    assert.equal(await count(source), 5);
    const again = await run();
    assert.deepEqual(again.map((d) => [d.day, d.result]), [
      ["2026-01-30", "skipped"],
      ["2026-01-31", "skipped"],
      ["2026-02-01", "inserted"],
      ["2026-02-02", "inserted"],
    ]);
    assert.equal(await count(source), 8);
  });
});
