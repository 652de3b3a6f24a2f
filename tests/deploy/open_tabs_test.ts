/**
 * End to end: open tabs across deploys (`retention.previousDays`). The CLI runs in-process after
 * a real `bootstrap` against s3rver and the loopback CloudFront fake; a visitor's requests go
 * through the deployed viewer-request function to the bucket (`requestThroughEdge`). Time is
 * a fixed clock moved forward between deploys: nothing sleeps.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { GetObjectCommand } from "@aws-sdk/client-s3";
import { FixedClock } from "@org/shared";
import { keptFilesKey } from "../../deploy/state/bucket_layout.ts";
import { requestThroughEdge } from "../support/cloudfront_edge.ts";
import { ACCOUNT, type InfraWorld, liveKeys, siteS3, startInfraWorld } from "./infra_world.ts";
import { writeSiteRepo } from "./site_repo.ts";

const BUCKET = `production-blog-${ACCOUNT}`;
const CONFIG = { siteName: "blog", region: "eu-west-1", app: "blog" };
const DAY = 86_400_000;
const T0 = Date.parse("2026-06-01T09:00:00.000Z");

/** Build 1: a page loading its hashed chunk, and a page that build 2 drops. */
const BUILD_1 = {
  "src/index.html": '<script type="module" src="/assets/chunk.1a.js"></script><h1>v1</h1>',
  "src/assets/chunk.1a.js": "chunk 1",
  "src/old/index.html": "<h1>old page</h1>",
};

/** Build 2: the page loads a new chunk; the old chunk and the old page are gone. */
async function writeBuild2(root: string): Promise<void> {
  await Deno.writeTextFile(
    join(root, "src/index.html"),
    '<script type="module" src="/assets/chunk.2b.js"></script><h1>v2</h1>',
  );
  await Deno.writeTextFile(join(root, "src/assets/chunk.2b.js"), "chunk 2");
  await Deno.remove(join(root, "src/assets/chunk.1a.js"));
  await Deno.remove(join(root, "src/old"), { recursive: true });
}

interface OpenTabs {
  readonly world: InfraWorld;
  readonly clock: FixedClock;
  /** `deploy <argv> --json` (or another command) at the clock's time, parsed. */
  json(argv: string[]): Promise<Record<string, unknown>>;
  /** What a visitor gets for `path` on the distribution's domain. */
  visit(path: string): Promise<{ status: number; body: string }>;
  close(): Promise<void>;
}

async function openTabsWorld(config: Record<string, unknown>): Promise<OpenTabs> {
  const world = await startInfraWorld(config);
  await writeSiteRepo(world.root);
  for (const [path, body] of Object.entries(BUILD_1)) {
    await Deno.mkdir(join(world.root, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(world.root, path), body);
  }
  const clock = new FixedClock(T0);
  const boot = await world.run(["bootstrap"], { clock });
  assert.equal(boot.code, 0, boot.stderr);
  const [dist] = [...world.aws.cloudfront.state.distributions.values()];
  const s3 = siteS3(world);
  return {
    world,
    clock,
    async json(argv) {
      const r = await world.run([...argv, "--json"], { clock });
      assert.equal(r.code, 0, r.stderr + r.stdout);
      return JSON.parse(r.stdout);
    },
    visit: (path) =>
      requestThroughEdge(world.aws.cloudfront.state, s3, `https://${dist!.domainName}${path}`),
    async close() {
      s3.destroy();
      await world[Symbol.asyncDispose]();
    },
  };
}

/** The script a page loads, as the browser would read it from the HTML. */
function scriptOf(html: string): string {
  const src = /src="([^"]+)"/.exec(html)?.[1];
  assert.ok(src, `no script in ${html}`);
  return src;
}

Deno.test("open tabs: a page of build 1 still loads its chunk after build 2 is live; a removed page answers 404 at once; after the grace the chunk is gone", async () => {
  const t = await openTabsWorld(CONFIG);
  try {
    assert.equal((await t.json(["deploy", "--builder", "local"])).deleted, 0);
    const tab = await t.visit("/");
    assert.equal(tab.status, 200);
    const chunk = scriptOf(tab.body);
    assert.equal(chunk, "/assets/chunk.1a.js");

    await writeBuild2(t.world.root);
    t.clock.advance(DAY);
    const second = await t.json(["deploy", "--builder", "local"]);
    assert.deepEqual(second.kept, [{
      key: "assets/chunk.1a.js",
      size: 7,
      since: new Date(T0 + DAY).toISOString(),
      until: new Date(T0 + 8 * DAY).toISOString(),
    }]);
    assert.deepEqual(second.expired, []);
    assert.equal(second.deleted, 1, "the removed page, and only it");
    assert.ok((second.changedKeys as string[]).includes("old/index.html"));
    assert.ok(!(second.changedKeys as string[]).includes("assets/chunk.1a.js"), "not invalidated");

    // Build 2 is what new visitors get; the open tab of build 1 still loads its chunk.
    assert.equal(scriptOf((await t.visit("/")).body), "/assets/chunk.2b.js");
    assert.deepEqual(await t.visit(chunk), { status: 200, body: "chunk 1", key: "site" + chunk });
    assert.equal((await t.visit("/old/")).status, 404, "a removed page answers 404 at once");
    assert.equal((await t.visit("/old/index.html")).status, 404);

    // The kept list is the environment's, in the bucket: any machine's next deploy reads it.
    assert.ok((await liveKeys(t.world, BUCKET)).includes("assets/chunk.1a.js"));
    const s3 = siteS3(t.world);
    try {
      const got = await s3.send(
        new GetObjectCommand({ Bucket: BUCKET, Key: keptFilesKey("production") }),
      );
      const record = JSON.parse(await got.Body!.transformToString());
      assert.deepEqual(record.files.map((f: { key: string }) => f.key), ["assets/chunk.1a.js"]);
    } finally {
      s3.destroy();
    }
    assert.deepEqual((await t.json(["status"])).kept, { files: 1, bytes: 7 });
    const human = await t.world.run(["status"], { clock: t.clock });
    assert.match(human.stdout, /^ {2}kept {6}1 file\(s\) of earlier builds \(7 B\) live/m);

    // One millisecond before the grace ends, a deploy still keeps it.
    t.clock.set(T0 + 8 * DAY - 1);
    const within = await t.json(["deploy", "--builder", "local"]);
    assert.equal((within.kept as unknown[]).length, 1);
    assert.equal((await t.visit(chunk)).status, 200);

    // Past the grace: the plan says it goes, and the next deploy deletes and invalidates it.
    t.clock.set(T0 + 8 * DAY);
    const plan = await t.json(["plan"]);
    assert.deepEqual(plan.deletes, ["assets/chunk.1a.js"]);
    assert.deepEqual(plan.expired, ["assets/chunk.1a.js"]);
    assert.deepEqual(plan.kept, []);
    assert.equal((await t.visit(chunk)).status, 200, "plan changes nothing");
    const third = await t.json(["deploy", "--builder", "local"]);
    assert.deepEqual(third.expired, ["assets/chunk.1a.js"]);
    assert.deepEqual(third.kept, []);
    assert.equal(third.deleted, 1);
    assert.deepEqual(
      (third.invalidation as { paths: string[] }).paths,
      ["/assets/chunk.1a.js"],
    );
    assert.equal((await t.visit(chunk)).status, 404);
    assert.deepEqual((await t.json(["status"])).kept, { files: 0, bytes: 0 });
  } finally {
    await t.close();
  }
});

Deno.test("open tabs: retention.previousDays 0 deletes what the build dropped at once", async () => {
  const t = await openTabsWorld({ ...CONFIG, retention: { previousDays: 0 } });
  try {
    await t.json(["deploy", "--builder", "local"]);
    const chunk = scriptOf((await t.visit("/")).body);
    await writeBuild2(t.world.root);
    t.clock.advance(DAY);
    const second = await t.json(["deploy", "--builder", "local"]);
    assert.deepEqual(second.kept, []);
    assert.equal(second.deleted, 2);
    assert.deepEqual(
      (second.changedKeys as string[]).filter((k) => !k.endsWith(".2b.js")).sort(),
      ["assets/chunk.1a.js", "index.html", "old/index.html", "sitemap.xml"],
    );
    assert.equal((await t.visit(chunk)).status, 404);
    assert.equal((await t.visit("/old/")).status, 404);
    assert.deepEqual((await t.json(["status"])).kept, { files: 0, bytes: 0 });
  } finally {
    await t.close();
  }
});

Deno.test("open tabs: delete removes the kept files with the site, and the kept list with them", async () => {
  const t = await openTabsWorld(CONFIG);
  try {
    await t.json(["deploy", "--builder", "local"]);
    await writeBuild2(t.world.root);
    t.clock.advance(DAY);
    await t.json(["deploy", "--builder", "local"]);
    assert.deepEqual((await t.json(["status"])).kept, { files: 1, bytes: 7 });
    const gone = await t.world.run(["delete", "--yes"], { clock: t.clock });
    assert.equal(gone.code, 0, gone.stderr);
    assert.deepEqual(await liveKeys(t.world, BUCKET), []);
    assert.deepEqual((await t.json(["status"])).kept, { files: 0, bytes: 0 });
  } finally {
    await t.close();
  }
});
