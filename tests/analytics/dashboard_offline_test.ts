/**
 * `deploy analytics dashboard` where its query engine cannot run: the CLI as a site repo runs
 * it, in a subprocess under the deploy task's exact flags, which do not include `--allow-ffi`,
 * so DuckDB's addon may not load (the state a new user starts in). The page still opens, every
 * refusal of the API still answers, the queries say why and how to fix it, and in headless
 * Chromium the page shows that in place of the numbers. Only SIGTERM stops it. No network.
 */
import assert from "node:assert/strict";
import { QUERY_NAMES } from "../../analytics/queries/named_queries.ts";
import { startInfraWorld } from "../deploy/infra_world.ts";
import { deployTaskFlags } from "../deploy/deploy_process.ts";
import { chromiumMissing, launchChromium } from "../support/browser.ts";
import { freePort } from "../support/free_port.ts";
import { type DashboardProcess, startDashboardProcess } from "./dashboard_process.ts";

const WORKSPACE = new URL("../../", import.meta.url).pathname;
// From a checkout the addon is in the checkout's node_modules, not the site's.
const FFI_HINT =
  `add --allow-ffi=${WORKSPACE}node_modules (where DuckDB's addon is) to the deploy task's flags`;

async function withOfflineDashboard(fn: (dashboard: DashboardProcess) => Promise<void>) {
  const port = freePort();
  await using world = await startInfraWorld({
    siteName: "blog",
    region: "eu-west-1",
    app: "blog",
    analytics: { dashboard: { port } },
  });
  const added = await world.run(["plugin", "add", "analytics"]);
  assert.equal(added.code, 0, added.stderr);
  const home = await Deno.makeTempDir({ prefix: "deploy-home-" });
  try {
    // The task's flags, plus reading the packages: a site's plugin import comes from Deno's
    // module cache, this test's from the workspace folder.
    const flags = (await deployTaskFlags(home)).map((f) =>
      f.startsWith("--allow-read=") ? `${f},${WORKSPACE}` : f
    );
    assert.ok(!flags.some((f) => f.startsWith("--allow-ffi")), "the task grants no FFI");
    await using dashboard = await startDashboardProcess({
      flags,
      args: [],
      cwd: world.root,
      env: { HOME: home, ...world.env },
    });
    assert.equal(dashboard.url, `http://127.0.0.1:${port}/`);
    await fn(dashboard);
    const stopped = await dashboard.stop();
    assert.equal(stopped.code, 0, stopped.stderr);
    assert.match(stopped.stderr, /its queries cannot run: DuckDB's native addon may not load/);
    assert.match(stopped.stderr, /--allow-ffi/);
    assert.match(stopped.stderr, /stopping the dashboard/);
    Deno.listen({ hostname: "127.0.0.1", port }).close();
  } finally {
    await Deno.remove(home, { recursive: true });
  }
}

Deno.test("analytics dashboard without DuckDB: serves the page and refusals, queries say why, SIGTERM stops it", async () => {
  await withOfflineDashboard(async ({ url }) => {
    const page = await fetch(url);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<title>Analytics<\/title>/);
    const meta = await fetch(`${url}api/queries`);
    assert.equal((await meta.json()).site.siteName, "blog");

    const refused = [
      [await fetch(`${url}api/queries/views`, { method: "DELETE" }), 405, "method_not_allowed"],
      [await fetch(`${url}api/queries/nope?from=2026-01-01&to=2026-01-02`), 404, "unknown_query"],
      [await fetch(`${url}api/queries/views?from=2026-02-01&to=2026-01-01`), 400, "bad_request"],
    ] as const;
    for (const [res, status, code] of refused) {
      assert.equal(res.status, status);
      assert.equal((await res.json()).error.code, code);
    }

    const query = await fetch(`${url}api/queries/views?from=2026-01-01&to=2026-01-07`);
    assert.equal(query.status, 503);
    const { error } = await query.json();
    assert.equal(error.code, "query_engine_unavailable");
    assert.match(error.message, /Deno needs --allow-ffi/);
    assert.equal(error.hint, FFI_HINT);
  });
});

Deno.test({
  name:
    "analytics dashboard without DuckDB: one banner gives the reason and, apart, its hint; the panels stay empty",
  ignore: chromiumMissing(),
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    await withOfflineDashboard(async ({ url }) => {
      await using browser = await launchChromium();
      const page = await browser.context.newPage();
      await page.setViewportSize({ width: 1280, height: 1400 });
      const errors: string[] = [];
      page.on("pageerror", (e) => errors.push(e.message));
      await page.goto(url);
      await page.waitForSelector("body[data-state=error]");
      const text = async (selector: string) => (await page.textContent(selector))?.trim();
      assert.equal(await text("#title"), "Analytics: blog (production)");
      // One banner: the message on its line, the hint on its own.
      assert.equal(await page.locator(".banner:visible").count(), 1);
      assert.match(
        (await text("#banner-message")) ?? "",
        /^The queries cannot run here: DuckDB's native addon may not load/,
      );
      assert.ok(!(await text("#banner-message"))!.includes(FFI_HINT));
      assert.equal(await text("#banner-hint"), FFI_HINT);
      assert.equal(await text("#status"), "");
      for (const id of ["#total-views", "#total-visitors", "#total-rows"]) {
        assert.equal(await text(id), "–", id);
      }
      // Every query but row_count (a total at the top) has a panel, and none repeats the error.
      assert.equal(await page.locator(".panel").count(), QUERY_NAMES.length - 1);
      assert.equal(await page.locator(".panel .state.error").count(), 0);
      assert.equal(await page.locator(".panel .state:visible").count(), 0);
      assert.equal(await page.locator(".panel canvas, .panel table").count(), 0);
      const hintShown = await page.locator(`text=${FFI_HINT}`).count();
      assert.equal(hintShown, 1, "the hint is shown once");
      const shot = await page.screenshot({ fullPage: true });
      assert.ok(shot.byteLength > 10_000, "the screenshot has content");
      const keep = Deno.env.get("ANALYTICS_DASHBOARD_OFFLINE_SCREENSHOT");
      if (keep) await Deno.writeFile(keep, shot);
      assert.deepEqual(errors, []);
    });
  },
});
