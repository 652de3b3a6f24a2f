/**
 * The analytics plugin end to end on its real query path, against peers written by others:
 * ministack (S3 Tables with its Iceberg REST catalog, Firehose, Lambda, IAM, Secrets Manager,
 * CloudWatch Logs, S3) and DuckDB 1.5.5 with its official `httpfs`, `aws`, `avro` and `iceberg`
 * extensions (the PyPI wheels). The CLI runs as a site repo runs it, in subprocesses under the
 * deploy task's flags plus `--allow-ffi` (docs/analytics.md), with `AWS_ENDPOINT_URL` at
 * ministack, so the product's own `ATTACH` reaches ministack's catalog through the endpoint
 * override. Each step is judged by what the emulator holds (through DuckDB and the SDK) and by
 * what a user sees (the CLI's output, the page in headless Chromium).
 */
import assert from "node:assert/strict";
import {
  CloudWatchLogsClient,
  CreateLogStreamCommand,
  PutLogEventsCommand,
} from "@aws-sdk/client-cloudwatch-logs";
import { insertRows } from "../../../analytics/queries/insert_rows.ts";
import { runNamedQuery } from "../../../analytics/queries/named_queries.ts";
import { ROW_COLUMNS } from "../../../analytics/transform/row.ts";
import { peerPythonEnv } from "../support/python_env.ts";
import { utcDay } from "../../../analytics/queries/range.ts";
import { testRow } from "../../../analytics/queries/_test_rows.ts";
import { pageViewLogEvent } from "../../../analytics/transform/_test_records.ts";
import { startDashboardProcess } from "../../analytics/dashboard_process.ts";
import { startAwsFakes } from "../../fakes/aws.ts";
import { chromiumMissing, launchChromium } from "../../support/browser.ts";
import { freePort } from "../../support/free_port.ts";
import { startMinistack } from "../support/aws_emulator.ts";
import { duckdbExtensions } from "../support/duckdb_extensions.ts";
import { makeSiteRoot, peerCli, withTable } from "./analytics_peer_world.ts";
import { FAKE_ROUTES, writeCalls } from "../aws/peer_world.ts";
import { startRecordingProxy } from "../support/recording_proxy.ts";
const NOW = Date.now();
const TODAY = utcDay(NOW);
const YESTERDAY = utcDay(NOW, -1);
const TWO_DAYS_AGO = utcDay(NOW, -2);

/**
 * Today's rows, as the pipeline would have written them: 3 human page views (3 visitors), a
 * bot's page view (a 4th visitor) and an asset. Bots count by default (`bots: "flag"`).
 */
const TODAY_ROWS = [
  testRow(`${TODAY}T00:10:00.000Z`, { visitor_key: "h1" }),
  testRow(`${TODAY}T00:20:00.000Z`, { visitor_key: "h2", uri: "/about" }),
  testRow(`${TODAY}T00:30:00.000Z`, { visitor_key: "h3" }),
  testRow(`${TODAY}T00:40:00.000Z`, {
    visitor_key: "b1",
    user_agent: "Googlebot/2.1",
    is_bot: true,
  }),
  testRow(`${TODAY}T00:50:00.000Z`, { visitor_key: "h1", uri: "/a.css", content_type: "text/css" }),
];

/** CloudFront access-log records (the log group's JSON lines) of earlier days: 3 page views. */
const logRecord = (iso: string, ip: string) => pageViewLogEvent(iso, { "c-ip": ip });
const EARLIER_EVENTS = [
  logRecord(`${TWO_DAYS_AGO}T08:00:00Z`, "203.0.113.1"),
  logRecord(`${YESTERDAY}T08:00:00Z`, "203.0.113.2"),
  logRecord(`${YESTERDAY}T09:00:00Z`, "203.0.113.3"),
];

Deno.test({
  name:
    "analytics peer: bootstrap on ministack, rows through the catalog, status, dashboard, backfill",
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const started = performance.now();
    const extensions = await duckdbExtensions();
    await using ministack = await startMinistack();
    await using fakes = startAwsFakes({
      accountId: ministack.accountId,
      region: ministack.region,
    });
    for (const r of FAKE_ROUTES.ministack) {
      // deno-lint-ignore no-console -- the one line that says a service ran on our fake
      console.log(`ministack: ${r.service} runs on our fake: ${r.why}`);
    }
    // The CLI's calls (the dashboard's DuckDB's too) go through the proxy, which names them for
    // the operations table of docs/aws-conformance.md.
    await using proxy = startRecordingProxy(ministack.endpoint);
    const port = freePort();
    const root = await makeSiteRoot("analytics-peer-", { analytics: { dashboard: { port } } });
    try {
      const { flags, env, cli } = await peerCli(
        ministack,
        fakes,
        extensions.home,
        root,
        proxy.endpoint,
      );

      const site = await cli("bootstrap");
      assert.equal(site.code, 0, site.stdout + site.stderr);
      assert.match(site.stdout, /created +log group \/blog\/production\/cloudfront/);
      assert.equal((await cli("plugin", "add", "analytics")).code, 0);

      const boot = await cli("analytics", "bootstrap");
      assert.equal(boot.code, 0, boot.stdout + boot.stderr);
      assert.match(boot.stdout, /Analytics bootstrap complete: 14 created/);

      // Rows through the attached catalog, with the product's own attach and insert.
      const tableBucketArn =
        `arn:aws:s3tables:us-east-1:${ministack.accountId}:bucket/production-blog-analytics`;
      await withTable(ministack, extensions.dir, tableBucketArn, async (source) => {
        assert.equal(await insertRows(source, TODAY_ROWS), 5);
      });

      const status = await cli("analytics", "status", "--json");
      assert.equal(status.code, 0, status.stderr);
      const report = JSON.parse(status.stdout);
      assert.deepEqual(report.rows, { count: 5 });
      // Every resource present, but for one ministack deviation (docs/aws-conformance.md): its
      // DescribeDeliveryStream echoes the Iceberg destination's configuration (S3Configuration)
      // where AWS answers IcebergDestinationDescription.S3DestinationDescription.
      const off = report.nodes.filter((n: { status: string }) => n.status !== "present")
        .map((n: { id: string; status: string; drift: string[] }) => [n.id, n.status, n.drift]);
      assert.deepEqual(off, [[
        "stream",
        "drifted",
        [`error bucket (none), want arn:aws:s3:::production-blog-analytics-errors-${ministack.accountId}`],
      ]]);
      assert.equal(report.stream.status, "ACTIVE");

      // The dashboard on the real engine, and the page in headless Chromium.
      await using dashboard = await startDashboardProcess({ flags, args: [], cwd: root, env });
      assert.equal(dashboard.url, `http://127.0.0.1:${port}/`);
      const views = await fetch(
        `${dashboard.url}api/queries/views?from=${TWO_DAYS_AGO}&to=${TODAY}`,
      );
      assert.equal(views.status, 200);
      assert.equal((await views.json()).total, 4);
      await showsTotals(dashboard.url, { views: "4", visitors: "4", rows: "5" });

      // Backfill the earlier days from the site's log group, through the transform and salt.
      const logs = new CloudWatchLogsClient({
        region: "us-east-1",
        endpoint: ministack.endpoint,
        credentials: { accessKeyId: "test", secretAccessKey: "test" },
      });
      try {
        const group = "/blog/production/cloudfront";
        await logs.send(new CreateLogStreamCommand({ logGroupName: group, logStreamName: "cf" }));
        await logs.send(
          new PutLogEventsCommand({
            logGroupName: group,
            logStreamName: "cf",
            logEvents: EARLIER_EVENTS,
          }),
        );
      } finally {
        logs.destroy();
      }
      const backfill = await cli("analytics", "backfill");
      assert.equal(backfill.code, 0, backfill.stdout + backfill.stderr);
      assert.match(backfill.stdout, new RegExp(`${TWO_DAYS_AGO} +inserted +1 rows`));
      assert.match(backfill.stdout, new RegExp(`${YESTERDAY} +inserted +2 rows`));
      const again = await cli("analytics", "status", "--json");
      assert.deepEqual(JSON.parse(again.stdout).rows, { count: 8 });
      await withTable(ministack, extensions.dir, tableBucketArn, async (source) => {
        const perDay = await runNamedQuery(source, "views", {
          from: TWO_DAYS_AGO,
          to: TODAY,
          includeBots: true,
        });
        assert.deepEqual(perDay.rows.map((r) => [r.bucket, r.views]), [
          [TWO_DAYS_AGO, 1],
          [YESTERDAY, 2],
          [TODAY, 4],
        ]);
      });
      // The running dashboard sees the new days on the next load.
      await showsTotals(dashboard.url, { views: "7", visitors: "7", rows: "8" });

      // PyIceberg, through ministack's catalog, reads the rows the product wrote: the same
      // schema, and per day the rows and page views the dashboard answers.
      const read = await readWithPyIceberg(ministack, tableBucketArn, "web", "page_views");
      assert.deepEqual(read.fields, ROW_COLUMNS.map((c) => c.name));
      assert.equal(read.rows.length, 8);
      const api = async (name: string) =>
        await (await fetch(
          `${dashboard.url}api/queries/${name}?from=${TWO_DAYS_AGO}&to=${TODAY}&bots=include`,
        )).json();
      const perDay = (keep: (r: PyIcebergRow) => boolean) =>
        [TWO_DAYS_AGO, YESTERDAY, TODAY].map((day) =>
          read.rows.filter((r) => r.day === day && keep(r)).length
        );
      assert.deepEqual(
        perDay(isPageView),
        (await api("views")).rows.map((r: { views: number }) => r.views),
      );
      assert.deepEqual(
        perDay(() => true),
        (await api("cache_hit_ratio")).rows.map((r: { requests: number }) => r.requests),
      );
      assert.equal(read.rows.length, (await api("row_count")).total);
      const stopped = await dashboard.stop();
      assert.equal(stopped.code, 0, stopped.stderr);
      assert.doesNotMatch(stopped.stderr, /cannot run/);
      // The roll-up file attached beside the Iceberg table, and closed days rolled up from it.
      assert.doesNotMatch(stopped.stderr, /roll-up .* could not be attached|rolling up .* failed/);
    } finally {
      await writeCalls("ministack", "analytics-peer", proxy.calls, fakes.allCalls());
      await Deno.remove(root, { recursive: true });
    }
    // deno-lint-ignore no-console -- the peer's run time, for the report
    console.log(`analytics peer: ${Math.round((performance.now() - started) / 1000)} s`);
  },
});

/** A row as the PyIceberg script prints it. */
interface PyIcebergRow {
  readonly day: string;
  readonly uri: string;
  readonly method: string;
  readonly status: number;
  readonly content_type: string | null;
}

/** What the PyIceberg script prints. */
interface PyIcebergRead {
  readonly fields: string[];
  readonly snapshot: number | null;
  readonly rows: PyIcebergRow[];
}

/** Reads the table with PyIceberg (`pyiceberg_read.py`) in the peer virtualenv. */
async function readWithPyIceberg(
  ministack: { endpoint: string; env: Readonly<Record<string, string>> },
  tableBucketArn: string,
  namespace: string,
  table: string,
): Promise<PyIcebergRead> {
  const py = await peerPythonEnv();
  const script = new URL("./pyiceberg_read.py", import.meta.url).pathname;
  const out = await new Deno.Command(py.python, {
    args: [script, ministack.endpoint, tableBucketArn, namespace, table],
    env: { ...ministack.env },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, `pyiceberg_read.py failed: ${stderr}`);
  return JSON.parse(new TextDecoder().decode(out.stdout));
}

/**
 * The page-view definition (`PAGE_VIEW` in named_queries.ts) applied to one row in TypeScript,
 * so PyIceberg's rows are counted independently of the dashboard's SQL.
 */
function isPageView(r: PyIcebergRow): boolean {
  if (r.method !== "GET" || !((r.status >= 200 && r.status <= 299) || r.status === 304)) {
    return false;
  }
  return r.content_type === null
    ? /(\/|\.html?|\/[^./]*)$/.test(r.uri)
    : r.content_type.startsWith("text/html");
}

/** The page's totals for the default range (the last 7 days), as Chromium shows them. */
async function showsTotals(
  url: string,
  want: { views: string; visitors: string; rows: string },
): Promise<void> {
  if (chromiumMissing()) return;
  await using browser = await launchChromium();
  const page = await browser.context.newPage();
  await page.goto(url);
  await page.waitForSelector("body[data-state=ready]", { timeout: 120_000 });
  const text = async (selector: string) => (await page.textContent(selector))?.trim();
  assert.deepEqual(
    {
      views: await text("#total-views"),
      visitors: await text("#total-visitors"),
      rows: await text("#total-rows"),
    },
    want,
  );
  assert.match((await text("#status")) ?? "", /bots included/);
}
