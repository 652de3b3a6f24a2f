import assert from "node:assert/strict";
import { unzipSync } from "fflate";
import {
  GetObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import { silentLogger, sleep } from "@org/shared";
import { startS3, testAwsConfig } from "../../support/s3.ts";
import { startCloudFrontFake } from "../../fakes/cloudfront.ts";
import { type DeployInput, planDeploy, runDeploy } from "../../../deploy/pipeline/deploy.ts";
import { createLocalBuilder } from "../../../deploy/builders/local.ts";
import type { Builder } from "../../../deploy/builders/builder.ts";
import type { CommandRunner } from "../../../deploy/source/revision.ts";
import { DeployError } from "../../../deploy/errors.ts";
import { BUILD_SCRIPT } from "../site_repo.ts";
import { lockKey, owedInvalidationKey } from "../../../deploy/state/bucket_layout.ts";

async function makeSiteRepo(): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "site-repo-" });
  const files: Record<string, string> = {
    "deno.json": JSON.stringify({
      tasks: { build: "deno run --allow-read=. --allow-write=dist build.js" },
    }),
    "build.js": BUILD_SCRIPT,
    ".gitignore": "dist/\n.env.production\n",
    ".env.production": "KEY=1",
    "src/index.html": "<h1>home</h1>",
    "src/blog/index.html": "<h1>blog</h1>",
    "src/_astro/app.1a2b3c4d.css": "body{}",
    "src/img/logo.png": "png",
  };
  for (const [path, body] of Object.entries(files)) {
    const abs = `${root}/${path}`;
    await Deno.mkdir(abs.slice(0, abs.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(abs, body);
  }
  return root;
}

const fakeGit: CommandRunner = (_cmd, args) =>
  Promise.resolve({
    code: 0,
    stdout: args[0] === "rev-parse" ? "0123456789ab\n" : "",
    stderr: "",
  });

async function liveKeys(s3: S3Client): Promise<string[]> {
  const out = await s3.send(new ListObjectsV2Command({ Bucket: "site-bucket", Prefix: "site/" }));
  return (out.Contents ?? []).map((o) => o.Key!).sort();
}

async function setup() {
  const s3srv = await startS3(["site-bucket"]);
  const cf = startCloudFrontFake();
  cf.state.seedDistribution("EDIST");
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  const cloudfront = new CloudFrontClient({ ...testAwsConfig, endpoint: cf.endpoint });
  const repo = await makeSiteRepo();
  const input = (over: Partial<DeployInput> = {}): DeployInput => ({
    repoRoot: repo,
    env: "production",
    isProduction: true,
    source: {
      sourceIgnore: [".jj/", ".git/", "node_modules/", "dist/", ".astro/"],
      sourceInclude: [],
    },
    paths: { app: ".", dist: "dist" },
    maxDurationSeconds: 60,
    bucket: "site-bucket",
    prefix: "site/",
    distributionId: "EDIST",
    tags: { app: "example.com", environment: "production" },
    seo: { robots: "auto", sitemap: "auto" },
    origin: "https://example.com",
    invalidationMaxPaths: 1000,
    builder: createLocalBuilder({ s3, logger: silentLogger }),
    clients: { s3, cloudfront },
    runCommand: fakeGit,
    logger: silentLogger,
    ...over,
  });
  return {
    s3,
    cf,
    repo,
    input,
    [Symbol.asyncDispose]: async () => {
      s3.destroy();
      cloudfront.destroy();
      await cf.close();
      await s3srv.close();
      await Deno.remove(repo, { recursive: true });
    },
  };
}

Deno.test("deploy: first deploy uploads all, identical redeploy uploads and invalidates nothing, a change uploads one object", async () => {
  await using t = await setup();
  const planned = await planDeploy(t.input());
  assert.equal(planned.uploads.length, 6);
  assert.deepEqual(await liveKeys(t.s3), [], "plan changes nothing");

  const first = await runDeploy(t.input());
  assert.equal(first.revision, "0123456789ab");
  assert.equal(first.uploaded, 6);
  assert.deepEqual(await liveKeys(t.s3), [
    "site/_astro/app.1a2b3c4d.css",
    "site/blog/index.html",
    "site/img/logo.png",
    "site/index.html",
    "site/robots.txt",
    "site/sitemap.xml",
  ]);
  assert.deepEqual(first.invalidation?.paths, planned.invalidation);
  assert.equal(t.cf.state.invalidations.length, 1);
  assert.equal(t.cf.state.invalidations[0]!.distributionId, "EDIST");

  const again = await runDeploy(t.input());
  assert.equal(again.uploaded, 0);
  assert.equal(again.deleted, 0);
  assert.equal(again.unchanged, 6);
  assert.equal(again.invalidation, undefined);
  assert.equal(t.cf.state.invalidations.length, 1, "no invalidation request at all");

  await Deno.writeTextFile(`${t.repo}/src/blog/index.html`, "<h1>blog v2</h1>");
  const changed = await runDeploy(t.input());
  assert.equal(changed.uploaded, 1);
  assert.deepEqual(changed.changedKeys, ["blog/index.html"]);
  assert.deepEqual(t.cf.state.invalidations[1]!.paths, ["/blog", "/blog/", "/blog/index.html"]);

  await Deno.remove(`${t.repo}/src/img/logo.png`);
  const removed = await runDeploy(t.input());
  assert.equal(removed.uploaded, 0);
  assert.equal(removed.deleted, 1);
  assert.ok(!(await liveKeys(t.s3)).includes("site/img/logo.png"));
  assert.deepEqual(t.cf.state.invalidations[2]!.paths, ["/img/logo.png"]);
});

Deno.test("deploy: the source zip respects .gitignore, sourceIgnore and sourceInclude", async () => {
  await using t = await setup();
  await Deno.mkdir(`${t.repo}/dist`);
  await Deno.writeTextFile(`${t.repo}/dist/stale.html`, "old");
  await Deno.mkdir(`${t.repo}/drafts`);
  await Deno.writeTextFile(`${t.repo}/drafts/x.md`, "draft");
  let zipped: string[] = [];
  const local = createLocalBuilder({ s3: t.s3, logger: silentLogger });
  const recording: Builder = {
    name: "local",
    deadlineMs: local.deadlineMs,
    run: async (job, hooks) => {
      const zip = "zip" in job.source ? job.source.zip : "";
      zipped = Object.keys(unzipSync(await Deno.readFile(zip))).sort();
      return local.run(job, hooks);
    },
  };
  await runDeploy(t.input({
    builder: recording,
    source: { sourceIgnore: [".git/", "dist/", "drafts/"], sourceInclude: [".env.production"] },
  }));
  assert.deepEqual(zipped, [
    ".env.production",
    ".gitignore",
    "build.js",
    "deno.json",
    "src/_astro/app.1a2b3c4d.css",
    "src/blog/index.html",
    "src/img/logo.png",
    "src/index.html",
  ]);
});

Deno.test("deploy: a missing sourceInclude path fails before anything is uploaded", async () => {
  await using t = await setup();
  let built = false;
  const builder: Builder = {
    name: "local",
    deadlineMs: () => 60_000,
    run: () => {
      built = true;
      return Promise.reject(new Error("must not build"));
    },
  };
  await assert.rejects(
    runDeploy(t.input({
      builder,
      source: { sourceIgnore: [], sourceInclude: ["config/missing.json"] },
    })),
    (err) =>
      err instanceof DeployError && err.code === "source_include_missing" &&
      err.message.includes("config/missing.json"),
  );
  assert.equal(built, false);
  assert.deepEqual(await liveKeys(t.s3), []);
  assert.equal(t.cf.state.invalidations.length, 0);
});

Deno.test("deploy: a non-production environment publishes Disallow-all robots and no sitemap", async () => {
  await using t = await setup();
  await runDeploy(t.input({
    env: "staging",
    isProduction: false,
    tags: { app: "example.com", environment: "staging" },
  }));
  const keys = await liveKeys(t.s3);
  assert.ok(keys.includes("site/robots.txt"));
  assert.ok(!keys.includes("site/sitemap.xml"));
});

Deno.test("deploy: an empty build output is refused with dist_empty and the live site is kept", async () => {
  await using t = await setup();
  await runDeploy(t.input());
  const before = await liveKeys(t.s3);
  await Deno.mkdir(`${t.repo}/dist`);
  await assert.rejects(
    runDeploy(t.input({ noBuild: true })),
    (err) => err instanceof DeployError && err.code === "dist_empty",
  );
  await assert.rejects(
    runDeploy(t.input({ noBuild: true, force: true })),
    (err) => err instanceof DeployError && err.code === "dist_empty",
  );
  assert.deepEqual(await liveKeys(t.s3), before);
  assert.equal(t.cf.state.invalidations.length, 1);
});

Deno.test("deploy: deleting most of a live site needs --force; plan warns instead of failing", async () => {
  await using t = await setup();
  const pages: Record<string, string> = {};
  for (let i = 0; i < 20; i++) pages[`src/p${i}.html`] = `<p>${i}</p>`;
  for (const [path, body] of Object.entries(pages)) {
    await Deno.writeTextFile(`${t.repo}/${path}`, body);
  }
  await runDeploy(t.input());
  for (const path of Object.keys(pages)) await Deno.remove(`${t.repo}/${path}`);
  await assert.rejects(
    runDeploy(t.input()),
    (err) =>
      err instanceof DeployError && err.code === "too_many_deletes" && err.hint.includes("--force"),
  );
  assert.equal((await liveKeys(t.s3)).length, 26, "nothing deleted");
  const planned = await planDeploy(t.input());
  assert.equal(planned.deletes.length, 20);
  assert.ok(planned.warnings.some((w) => w.includes("--force")), planned.warnings.join("|"));
  const forced = await runDeploy(t.input({ force: true }));
  assert.equal(forced.deleted, 20);
});

Deno.test("deploy --no-build leaves the working tree's paths.dist untouched (SEO files in memory)", async () => {
  await using t = await setup();
  await Deno.mkdir(`${t.repo}/dist`);
  await Deno.writeTextFile(`${t.repo}/dist/index.html`, "<h1>prebuilt</h1>");
  const summary = await runDeploy(t.input({ noBuild: true }));
  assert.equal(summary.uploaded, 3);
  const onDisk = [];
  for await (const e of Deno.readDir(`${t.repo}/dist`)) onDisk.push(e.name);
  assert.deepEqual(onDisk, ["index.html"]);
  assert.deepEqual(await liveKeys(t.s3), [
    "site/index.html",
    "site/robots.txt",
    "site/sitemap.xml",
  ]);
});

Deno.test("deploy --refresh re-uploads every file and invalidates all of it (past the cap: /*)", async () => {
  await using t = await setup();
  await runDeploy(t.input());
  const refreshed = await runDeploy(t.input({ refresh: true }));
  assert.equal(refreshed.uploaded, 6);
  assert.equal(refreshed.changedKeys.length, 6);
  assert.ok(refreshed.invalidation?.paths.includes("/img/logo.png"));
  const capped = await runDeploy(t.input({ refresh: true, invalidationMaxPaths: 3 }));
  assert.deepEqual(capped.invalidation?.paths, ["/*"]);
});

Deno.test("deploy: a dirty tree redeployed with a new edit to the same file invalidates again", async () => {
  await using t = await setup();
  // The revision stays `0123456789ab` (a dirty tree keeps its id) while the content changes.
  await runDeploy(t.input());
  await Deno.writeTextFile(`${t.repo}/src/blog/index.html`, "<h1>v2</h1>");
  await runDeploy(t.input());
  await Deno.writeTextFile(`${t.repo}/src/blog/index.html`, "<h1>v3</h1>");
  await runDeploy(t.input());
  const [, second, third] = t.cf.state.invalidations;
  assert.deepEqual(second!.paths, third!.paths);
  assert.notEqual(second!.callerReference, third!.callerReference);
});

async function owedRecord(s3: S3Client): Promise<unknown> {
  try {
    const out = await s3.send(
      new GetObjectCommand({ Bucket: "site-bucket", Key: owedInvalidationKey("production") }),
    );
    return JSON.parse(await out.Body!.transformToString());
  } catch {
    return undefined;
  }
}

Deno.test("deploy: an invalidation CloudFront refuses stays owed and the next deploy makes it good", async () => {
  await using t = await setup();
  const input = (over: Partial<DeployInput> = {}) =>
    t.input({ owedKey: owedInvalidationKey("production"), retry: { attempts: 1 }, ...over });
  await runDeploy(input());
  assert.equal(await owedRecord(t.s3), undefined, "nothing owed after a deploy that invalidated");

  await Deno.writeTextFile(`${t.repo}/src/blog/index.html`, "<h1>blog v2</h1>");
  // CloudFront refuses the next invalidation: too many in progress.
  t.cf.fail("CreateInvalidation", { code: "TooManyInvalidationsInProgress" });
  await assert.rejects(runDeploy(input()), /TooManyInvalidationsInProgress/);
  assert.deepEqual(await owedRecord(t.s3), { version: 1, keys: ["blog/index.html"], all: false });

  await Deno.writeTextFile(`${t.repo}/src/index.html`, "<h1>home v2</h1>");
  const next = await runDeploy(input());
  assert.deepEqual(next.changedKeys, ["index.html"], "only the home page changed this time");
  assert.deepEqual(next.invalidation?.paths, [
    "/",
    "/blog",
    "/blog/",
    "/blog/index.html",
    "/index.html",
  ]);
  assert.equal(await owedRecord(t.s3), undefined, "the debt is cleared once CloudFront accepted");

  // The owed paths count against invalidationMaxPaths like any others.
  await Deno.writeTextFile(`${t.repo}/src/blog/index.html`, "<h1>blog v3</h1>");
  // CloudFront refuses the next invalidation: too many in progress.
  t.cf.fail("CreateInvalidation", { code: "TooManyInvalidationsInProgress" });
  await assert.rejects(runDeploy(input()));
  await Deno.writeTextFile(`${t.repo}/src/index.html`, "<h1>home v3</h1>");
  const capped = await runDeploy(input({ invalidationMaxPaths: 4 }));
  assert.deepEqual(capped.invalidation?.paths, ["/*"]);
});

/** A second checkout of the site with different content (new HTML, CSS renamed). */
async function otherCheckout(repo: string): Promise<string> {
  const other = await Deno.makeTempDir({ prefix: "site-repo-b-" });
  await new Deno.Command("cp", { args: ["-r", `${repo}/.`, other] }).output();
  await Deno.writeTextFile(`${other}/src/index.html`, "<h1>home from B</h1>");
  await Deno.remove(`${other}/src/_astro/app.1a2b3c4d.css`);
  await Deno.writeTextFile(`${other}/src/_astro/app.9f8e7d6c.css`, "body{color:red}");
  return other;
}

const lockOf = (holder: string, waitMs = 0, forceUnlock = false) => ({
  key: lockKey("production"),
  holder,
  waitMs,
  ...(forceUnlock ? { forceUnlock } : {}),
});

Deno.test("deploy: two concurrent deploys of one environment do not interleave; the bucket is one build exactly", async () => {
  await using t = await setup();
  const other = await otherCheckout(t.repo);
  try {
    const results = await Promise.allSettled([
      runDeploy(t.input({ lock: lockOf("checkout A") })),
      runDeploy(t.input({ repoRoot: other, lock: lockOf("checkout B") })),
    ]);
    const won = results.findIndex((r) => r.status === "fulfilled");
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult | undefined;
    assert.ok(won >= 0 && lost, `one deploy wins, one refuses: ${JSON.stringify(results)}`);
    assert.ok(lost.reason instanceof DeployError && lost.reason.code === "deploy_locked");
    assert.match(lost.reason.message, won === 0 ? /checkout A/ : /checkout B/);
    const css = won === 0 ? "site/_astro/app.1a2b3c4d.css" : "site/_astro/app.9f8e7d6c.css";
    const keys = await liveKeys(t.s3);
    assert.ok(keys.includes(css), `the winner's CSS is live: ${keys}`);
    assert.equal(keys.filter((k) => k.startsWith("site/_astro/")).length, 1, `${keys}`);
    const home = await t.s3.send(
      new GetObjectCommand({ Bucket: "site-bucket", Key: "site/index.html" }),
    );
    assert.equal(
      await home.Body!.transformToString(),
      won === 0 ? "<h1>home</h1>" : "<h1>home from B</h1>",
    );
    const locks = await t.s3.send(
      new ListObjectsV2Command({ Bucket: "site-bucket", Prefix: "locks/" }),
    );
    assert.equal(locks.KeyCount ?? 0, 0, "the lock is released at the end");

    // The loser, run again (or waiting), deploys its own build whole.
    const later = results[won === 0 ? 1 : 0]!;
    assert.equal(later.status, "rejected");
    await runDeploy(t.input({ repoRoot: won === 0 ? other : t.repo, lock: lockOf("again") }));
  } finally {
    await Deno.remove(other, { recursive: true });
  }
});

Deno.test("deploy: a held lock makes another deploy wait a bounded time, then refuse naming its holder; --force-unlock and expiry free it", async () => {
  await using t = await setup();
  const put = (expiresAt: string) =>
    t.s3.send(
      new PutObjectCommand({
        Bucket: "site-bucket",
        Key: lockKey("production"),
        Body: JSON.stringify({
          version: 1,
          holder: "deploy production by ci@runner-7 (pid 99)",
          token: "t",
          acquiredAt: "2026-01-01T00:00:00.000Z",
          expiresAt,
        }),
      }),
    );
  await put(new Date(Date.now() + 3_600_000).toISOString());
  const slept: number[] = [];
  await assert.rejects(
    runDeploy(t.input({
      lock: lockOf("me", 300),
      sleep: (ms) => {
        slept.push(ms);
        return sleep(ms);
      },
    })),
    (err) =>
      err instanceof DeployError && err.code === "deploy_locked" &&
      err.message.includes("ci@runner-7 (pid 99)") && /--force-unlock/.test(err.hint),
  );
  assert.ok(slept.length >= 1, "it waited before refusing");
  assert.ok(slept.reduce((a, b) => a + b, 0) <= 300, "no longer than its bound");
  assert.deepEqual(await liveKeys(t.s3), [], "nothing was uploaded");

  await runDeploy(t.input({ lock: lockOf("operator", 0, true) }));
  assert.equal((await liveKeys(t.s3)).length, 6, "--force-unlock deploys");

  // A lock whose holder died lapses at its expiry and is taken over.
  await put("2026-01-01T00:10:00.000Z");
  await Deno.writeTextFile(`${t.repo}/src/index.html`, "<h1>after the crash</h1>");
  const took = await runDeploy(t.input({ lock: lockOf("next") }));
  assert.deepEqual(took.changedKeys, ["index.html"]);
  const locks = await t.s3.send(
    new ListObjectsV2Command({ Bucket: "site-bucket", Prefix: "locks/" }),
  );
  assert.equal(locks.KeyCount ?? 0, 0, "released after the takeover");
});

Deno.test("deploy: the PDS stage runs before the build and once the site is live, both outside the lock, and not after a failed run", async () => {
  await using t = await setup();
  const locked = async () =>
    ((await t.s3.send(new ListObjectsV2Command({ Bucket: "site-bucket", Prefix: lockKey("") })))
      .KeyCount ?? 0) > 0;
  const seen: string[] = [];
  const pds = {
    beforeBuild: async () => void seen.push(`before, locked: ${await locked()}`),
    afterPublish: async () => void seen.push(`after, locked: ${await locked()}`),
  };
  const input = (over: Partial<DeployInput> = {}) =>
    t.input({
      pds,
      lock: { key: lockKey("production"), holder: "test", waitMs: 0 },
      onProgress: (e) => void (e.kind === "stage" && seen.push(e.stage)),
      ...over,
    });
  await runDeploy(input());
  assert.equal(seen[0], "before, locked: false");
  assert.equal(seen[1], "revision", "the stage's first step comes before the pipeline's");
  assert.ok(seen.indexOf("sync") < seen.indexOf("invalidate"));
  assert.equal(seen.at(-2), "invalidate");
  assert.equal(seen.at(-1), "after, locked: false");

  seen.length = 0;
  const failing: Builder = {
    ...createLocalBuilder({ s3: t.s3, logger: silentLogger }),
    run: () => Promise.reject(new Error("the build failed")),
  };
  await assert.rejects(runDeploy(input({ builder: failing })), /the build failed/);
  assert.equal(seen[0], "before, locked: false");
  assert.ok(!seen.some((s) => s.startsWith("after")), "nothing is published after a failure");
});
