/**
 * The dashboard end to end in headless Chromium: the real server on loopback, the real page
 * and uPlot served by the CLI, the named queries on a local DuckDB table of generated rows.
 */
import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { createJsonLogger } from "@org/shared";
import { createDashboardHandler } from "../../analytics/dashboard/handler.ts";
import { serveDashboard } from "../../analytics/dashboard/serve.ts";
import { insertRows } from "../../analytics/queries/insert_rows.ts";
import { openLocalTable } from "../../analytics/queries/local_table.ts";
import { runNamedQuery } from "../../analytics/queries/named_queries.ts";
import { createScanSharing } from "../../analytics/queries/shared_scan.ts";
import { KNOWN_ROWS, PANEL_ROWS, testRow } from "../../analytics/queries/_test_rows.ts";
import type { PageViewRow } from "../../analytics/transform/row.ts";
import { chromiumMissing, launchChromium } from "../support/browser.ts";

/** Four more human page views on a day inside the last 30 days but not the last 7. */
const EARLIER = [0, 1, 2, 3].map((i) =>
  testRow(`2026-01-10T0${i}:00:00.000Z`, { uri: "/older", visitor_key: `e${i}` })
);

/** The dashboard on a local table of `rows`, "now" at `now`, and a page in Chromium watching it. */
interface DashboardPage extends AsyncDisposable {
  readonly page: Page;
  readonly url: string;
  /** Console errors and warnings, page errors. */
  readonly problems: string[];
  /** Requests to anything but the dashboard's own origin. */
  readonly outside: string[];
  /** What the server logged. */
  readonly logs: string[];
}

async function openDashboardPage(
  rows: readonly PageViewRow[],
  now: string,
): Promise<DashboardPage> {
  const stack = new AsyncDisposableStack();
  try {
    const source = stack.use(await openLocalTable());
    await insertRows(source, rows);
    const logs: string[] = [];
    // As the dashboard command runs them: the page's queries in flight share their scans.
    const scans = createScanSharing();
    const server = stack.use(serveDashboard(0, (port) =>
      createDashboardHandler({
        port,
        runQuery: (name, range) => runNamedQuery(source, name, range, { scans }),
        includeBotsByDefault: false,
        site: { siteName: "blog", env: "production" },
        clock: { now: () => Date.parse(now) },
        log: createJsonLogger({ write: (line) => logs.push(line) }),
      })));
    const browser = stack.use(await launchChromium());
    const page = await browser.context.newPage();
    const problems: string[] = [];
    const outside: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
    page.on("request", (r) => {
      if (!r.url().startsWith(server.url) && !r.url().startsWith("data:")) outside.push(r.url());
    });
    const moved = stack.move();
    return {
      page,
      url: server.url,
      problems,
      outside,
      logs,
      [Symbol.asyncDispose]: () => moved.disposeAsync(),
    };
  } catch (err) {
    await stack.disposeAsync();
    throw err;
  }
}

Deno.test({
  name: "dashboard page: charts the generated rows; range, bots and custom range change them",
  ignore: chromiumMissing(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using dashboard = await openDashboardPage(
      [...KNOWN_ROWS, ...EARLIER],
      "2026-02-02T08:00:00Z",
    );
    const { page, problems, outside, logs } = dashboard;
    const ready = () => page.waitForSelector("body[data-state=ready]");
    const totalViews = (value: string) =>
      page.locator("#total-views").filter({ hasText: new RegExp(`^${value}$`) }).waitFor();
    const text = async (selector: string) => (await page.textContent(selector))?.trim();
    /** Resizes the page, then waits for the charts to be redrawn at its width (debounced). */
    const resize = async (width: number, height: number) => {
      await page.setViewportSize({ width, height });
      // A string: this file is type-checked without the DOM library.
      await page.waitForFunction(
        `document.documentElement.clientWidth === ${width} && ` +
          `[...document.querySelectorAll(".panel .body")].every((body) => {` +
          `  const chart = body.querySelector("canvas");` +
          `  return chart === null ||` +
          `    Math.abs(chart.getBoundingClientRect().width - Math.max(280, body.clientWidth)) < 2;` +
          `})`,
      );
    };

    const started = performance.now();
    await page.goto(dashboard.url);
    await ready();
    const firstLoadMs = performance.now() - started;

    // Last 7 days (the default): bots excluded as configured.
    assert.equal(await text("#title"), "Analytics: blog (production)");
    assert.equal(await text("#total-views"), "5");
    assert.equal(await text("#total-visitors"), "4");
    assert.equal(await text("#total-rows"), "8");
    assert.equal(await page.locator("#panel-views canvas").count() > 0, true);
    assert.equal(await page.locator("#panel-unique_visitors canvas").count() > 0, true);
    assert.equal(await page.locator("#panel-cache_hit_ratio canvas").count() > 0, true);
    assert.deepEqual(
      await page.locator("#panel-top_paths tbody tr").allInnerTexts(),
      ["/\t3", "/about\t1", "/blog/\t1"],
    );
    assert.match((await text("#panel-referrers tbody")) ?? "", /news\.ycombinator\.com/);

    // Last 30 days, chosen from the keyboard.
    await page.focus('button[data-days="30"]');
    await page.keyboard.press("Enter");
    await totalViews("9");
    await ready();
    assert.equal(await page.getAttribute('button[data-days="30"]', "aria-pressed"), "true");
    assert.equal(await page.inputValue("#from"), "2026-01-04");

    // Bots included: two more views, two more visitors.
    await page.check("#bots");
    await totalViews("11");
    await ready();
    assert.equal(await text("#total-visitors"), "10");
    assert.match((await text("#status")) ?? "", /bots included/);
    await resize(1280, 1400);
    const shot = await page.screenshot({ fullPage: true });
    assert.ok(shot.byteLength > 10_000, "the screenshot has content");
    const keep = Deno.env.get("ANALYTICS_DASHBOARD_SCREENSHOT");
    if (keep) await Deno.writeFile(keep, shot);

    // A custom range with no rows: the empty states.
    await page.fill("#from", "2025-12-01");
    await page.fill("#to", "2025-12-07");
    await page.click("#apply");
    await totalViews("0");
    await ready();
    assert.equal(await text("#panel-top_paths .state"), "No data in this range.");

    // A phone: nothing wider than the screen.
    await resize(390, 844);
    const overflow = await page.evaluate<number>(
      "document.documentElement.scrollWidth - document.documentElement.clientWidth",
    );
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow}px on a phone`);

    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
    assert.deepEqual(logs, []);
    assert.ok(firstLoadMs < 10_000, `first load took ${firstLoadMs} ms`);
  },
});

Deno.test({
  name: "dashboard page: the new panels, the totals' changes against the previous week, CSV export",
  ignore: chromiumMissing(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    // Today is 7 March: the last 7 days are 1 to 7 March, compared with 22 to 28 February.
    await using dashboard = await openDashboardPage(PANEL_ROWS, "2026-03-07T18:00:00Z");
    const { page, problems, outside } = dashboard;
    const text = async (selector: string) => (await page.textContent(selector))?.trim();
    const rows = (name: string) => page.locator(`#panel-${name} tbody tr`).allInnerTexts();

    await page.goto(dashboard.url);
    await page.waitForSelector("body[data-state=ready]");

    // The totals and their changes: 7 views against 2, 6 visitors against 2.
    assert.equal(await text("#total-views"), "7");
    assert.match(
      (await text("#delta-views")) ?? "",
      /^\+250\s?% vs 2026-02-22 to 2026-02-28 \(2\)$/,
    );
    assert.equal(await page.getAttribute("#delta-views", "data-change"), "up");
    assert.match((await text("#delta-visitors")) ?? "", /^\+200\s?% vs 2026-02-22/);

    assert.deepEqual(await rows("entry_pages"), ["/\t3", "/about\t1", "/blog/\t1"]);
    assert.match((await text("#panel-entry_pages .panel-total")) ?? "", /^Total 5 \+150\s?% vs/);
    assert.deepEqual(await rows("devices"), [
      "desktop\t3",
      "tablet\t2",
      "mobile\t1",
      "unknown\t1",
    ]);
    assert.deepEqual((await rows("browsers"))[0], "Safari\t3");
    assert.deepEqual((await rows("os"))[0], "Linux\t2");
    assert.deepEqual((await rows("channels"))[0], "email\t2");
    assert.deepEqual(await rows("campaigns"), [
      "newsletter\temail\tmarch\t2",
      "google\t–\t–\t1",
      "mastodon\tsocial\tlaunch\t1",
    ]);
    // Nothing to compare with: said, not shown as a change.
    assert.match(
      (await text("#panel-campaigns .panel-total")) ?? "",
      /^Total 4 none in the previous range \(2026-02-22 to 2026-02-28\)$/,
    );
    assert.equal(
      await page.getAttribute("#panel-campaigns .panel-total .delta", "data-change"),
      "none",
    );
    assert.deepEqual(await rows("not_found"), [
      "/missing\thttps://example.com/about\t2",
      "/old.css\t–\t1",
    ]);
    assert.equal(
      await text("#panel-bots .state"),
      "Bots are excluded: tick “Include bots” to list them.",
    );

    // Bots included: the bots panel lists them, and the export links follow the toggle.
    await page.check("#bots");
    await page.locator("#total-views").filter({ hasText: /^10$/ }).waitFor();
    await page.waitForSelector("body[data-state=ready]");
    assert.deepEqual(await rows("bots"), [
      "ai\tGPTBot\t2",
      "search\tGooglebot\t1",
      "unknown\tunknown\t1",
    ]);
    const link = page.locator("#panel-entry_pages a.export");
    assert.equal(
      await link.getAttribute("href"),
      "/api/queries/entry_pages.csv?from=2026-03-01&to=2026-03-07&bots=include",
    );
    assert.equal(
      await page.locator(".panel a.export").count(),
      await page.locator(".panel").count(),
    );
    const [download] = await Promise.all([page.waitForEvent("download"), link.click()]);
    assert.equal(download.suggestedFilename(), "entry_pages_2026-03-01_2026-03-07.csv");
    const saved = await download.path();
    assert.equal(
      await Deno.readTextFile(saved),
      '"path","entries"\r\n"/",5\r\n"/about",1\r\n"/blog/",1\r\n',
    );

    assert.deepEqual(problems, []);
    assert.deepEqual(outside, []);
  },
});

/**
 * A 404 path of many segments (each shorter than its column, so every break is between two), and
 * campaigns with long names: what overflowed its card at 1280 px.
 */
const LONG_PATH = "/blog/2026/01/an-article-about-static-sites/comments/from-readers-of-a-link" +
  "/page/2/sorted-by-oldest-first/with-replies/and-quotes/index.html";
const WIDE_ROWS = [
  ...[0, 1].map((i) =>
    testRow(`2026-02-01T0${i}:00:00.000Z`, {
      uri: LONG_PATH,
      status: 404,
      referrer: "https://news.ycombinator.com/item?id=1234567890123456789",
      visitor_key: `w${i}`,
    })
  ),
  ...[0, 1, 2].map((i) =>
    testRow(`2026-02-01T1${i}:00:00.000Z`, {
      utm_source: "newsletter-subscribers-of-the-weekly-digest",
      utm_medium: "email-with-a-long-medium-name",
      utm_campaign: `spring-launch-announcement-with-extended-campaign-name-${i}`,
      channel: "email",
      visitor_key: `c${i}`,
    })
  ),
];

Deno.test({
  name: "dashboard page at 1280 px: tables fit their cards and long paths wrap at /",
  ignore: chromiumMissing(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await using dashboard = await openDashboardPage(
      [...KNOWN_ROWS, ...WIDE_ROWS],
      "2026-02-02T08:00:00Z",
    );
    const { page, problems } = dashboard;
    await page.setViewportSize({ width: 1280, height: 1400 });
    await page.goto(dashboard.url);
    await page.waitForSelector("body[data-state=ready]");
    await page.locator("#panel-not_found tbody tr").first().waitFor();
    await page.locator("#panel-campaigns tbody tr").first().waitFor();
    const shot = await page.screenshot({ fullPage: true });
    assert.ok(shot.byteLength > 10_000, "the screenshot has content");
    const keep = Deno.env.get("ANALYTICS_DASHBOARD_WIDE_SCREENSHOT");
    if (keep) await Deno.writeFile(keep, shot);
    // Every table ends inside its card (the card's padding box), and no card is wider than
    // its grid cell.
    const overflowing = await page.evaluate<string[]>(`
      [...document.querySelectorAll(".panel")].flatMap((panel) => {
        const table = panel.querySelector("table");
        const box = panel.getBoundingClientRect();
        const out = [];
        if (panel.scrollWidth > panel.clientWidth) out.push(panel.id + " scrolls sideways");
        if (table && table.getBoundingClientRect().right > box.right - 1) {
          out.push(panel.id + ": table ends at " + table.getBoundingClientRect().right +
            ", card at " + box.right);
        }
        return out;
      })
    `);
    assert.deepEqual(overflowing, []);
    // The long path is wrapped, and every line but the last ends just after a "/".
    const breaks = await page.evaluate<{ text: string; lineEnds: string[] }>(`(() => {
      const cell = document.querySelector("#panel-not_found tbody td.key");
      const text = cell.textContent;
      const lineEnds = [];
      const range = document.createRange();
      let top;
      let offset = 0;
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (let i = 0; i < node.textContent.length; i++) {
          range.setStart(node, i);
          range.setEnd(node, i + 1);
          const y = range.getClientRects()[0]?.top;
          if (y !== undefined && top !== undefined && y > top + 1) lineEnds.push(text[offset - 1]);
          if (y !== undefined) top = y;
          offset++;
        }
      }
      return { text, lineEnds };
    })()`);
    assert.equal(breaks.text, LONG_PATH);
    assert.ok(breaks.lineEnds.length > 0, "the path is long enough to wrap in its column");
    assert.deepEqual(breaks.lineEnds, breaks.lineEnds.map(() => "/"));
    assert.deepEqual(problems, []);
  },
});
