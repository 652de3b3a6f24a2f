import assert from "node:assert/strict";
import { unzipSync } from "fflate";
import { ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import { silentLogger } from "@org/shared";
import { startS3, testAwsConfig } from "../support/s3.ts";
import { startCloudFrontFake } from "./cloudfront_fake.ts";
import { type DeployInput, planDeploy, runDeploy } from "../../deploy/pipeline/deploy.ts";
import { createLocalBuilder } from "../../deploy/builders/local.ts";
import type { Builder } from "../../deploy/builders/builder.ts";
import type { CommandRunner } from "../../deploy/source/revision.ts";
import { DeployError } from "../../deploy/errors.ts";
import { BUILD_SCRIPT } from "../deploy/site_repo.ts";

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
  assert.equal(t.cf.invalidations.length, 1);
  assert.equal(t.cf.invalidations[0]!.distributionId, "EDIST");

  const again = await runDeploy(t.input());
  assert.equal(again.uploaded, 0);
  assert.equal(again.deleted, 0);
  assert.equal(again.unchanged, 6);
  assert.equal(again.invalidation, undefined);
  assert.equal(t.cf.invalidations.length, 1, "no invalidation request at all");

  await Deno.writeTextFile(`${t.repo}/src/blog/index.html`, "<h1>blog v2</h1>");
  const changed = await runDeploy(t.input());
  assert.equal(changed.uploaded, 1);
  assert.deepEqual(changed.changedKeys, ["blog/index.html"]);
  assert.deepEqual(t.cf.invalidations[1]!.paths, ["/blog", "/blog/", "/blog/index.html"]);

  await Deno.remove(`${t.repo}/src/img/logo.png`);
  const removed = await runDeploy(t.input());
  assert.equal(removed.uploaded, 0);
  assert.equal(removed.deleted, 1);
  assert.ok(!(await liveKeys(t.s3)).includes("site/img/logo.png"));
  assert.deepEqual(t.cf.invalidations[2]!.paths, ["/img/logo.png"]);
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
  assert.equal(t.cf.invalidations.length, 0);
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
  assert.equal(t.cf.invalidations.length, 1);
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
  const [, second, third] = t.cf.invalidations;
  assert.deepEqual(second!.paths, third!.paths);
  assert.notEqual(second!.callerReference, third!.callerReference);
});
