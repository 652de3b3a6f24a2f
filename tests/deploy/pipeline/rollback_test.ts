/**
 * Rollback of a 10,000-file site through the deploy pipeline, against s3rver run as a Node
 * subprocess (its listing pages correctly past 1,000 keys) behind the bucket-configuration
 * proxy (object tags, injected faults), with the CloudFront fake taking the invalidations.
 * About 26,000 S3 requests: minutes on a loaded machine. `ROLLBACK_TEST_FILES` shrinks the site
 * while working on it.
 */
import assert from "node:assert/strict";
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import { HeadObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { mapLimited, silentLogger } from "@org/shared";
import { testAwsConfig } from "../../support/s3.ts";
import { startNodeS3 } from "../../support/s3_node.ts";
import { startSiteS3 } from "../../fakes/s3_bucket_config.ts";
import { startCloudFrontFake } from "../../fakes/cloudfront.ts";
import { type DeployInput, runDeploy } from "../../../deploy/pipeline/deploy.ts";
import { createLocalBuilder } from "../../../deploy/builders/local.ts";
import { chooseRollbackMethod } from "../../../deploy/build_records/output_store.ts";
import { listSite } from "../../../deploy/sync/remote.ts";
import { owedInvalidationKey } from "../../../deploy/state/bucket_layout.ts";
import { loopbackDeployInput } from "../../support/deploy_input.ts";
import { getText } from "../../../deploy/aws/s3_objects.ts";
import { planInvalidation } from "../../../deploy/cdn/plan_invalidation.ts";
import type { DeployError } from "../../../deploy/errors.ts";

const BUCKET = "site-bucket";
const FILES = Number(Deno.env.get("ROLLBACK_TEST_FILES") ?? 10_000);
const TAGS = { app: "example.com", environment: "production" };

/** Writes `files` (key → body) under `dir`, replacing what was there. */
async function writeDist(dir: string, files: ReadonlyMap<string, string>) {
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  await mapLimited([...files], 16, async ([key, body]) => {
    const path = `${dir}/${key}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, body);
  });
}

Deno.test("rollback: a 10,000-file site restores exactly the target manifest; a fault halfway is converged by a re-run", async () => {
  await using s3srv = await startSiteS3({ upstream: await startNodeS3([BUCKET]) });
  await using cf = startCloudFrontFake();
  cf.state.seedDistribution("EDIST");
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  const cloudfront = new CloudFrontClient({ ...testAwsConfig, endpoint: cf.endpoint });
  const repo = await Deno.makeTempDir({ prefix: "rollback-site-" });
  const retry = { baseDelayMs: 1, maxDelayMs: 5 };
  let revision = "";
  const site = {
    repoRoot: repo,
    bucket: BUCKET,
    clients: { s3, cloudfront },
    revision: () => revision,
    builder: createLocalBuilder({ s3, logger: silentLogger, retry }),
  };
  const input = (over: Partial<DeployInput>) =>
    loopbackDeployInput(site, { tags: TAGS, noBuild: true, retry, ...over });
  try {
    // Build 1: 10,000 files, pages and assets.
    const v1 = new Map<string, string>();
    for (let i = 0; i < FILES; i++) {
      const key = i % 10 === 0 ? `p${i}/index.html` : `_astro/a${i}.${i.toString(16)}.js`;
      v1.set(key, `v1 ${key}`);
    }
    revision = "aaaaaaaaaaaa";
    await writeDist(`${repo}/dist`, v1);
    await runDeploy(input({}));

    // Build 2: a tenth of the files changed, another tenth gone and as many new, other tags.
    const v2 = new Map<string, string>();
    let i = 0;
    for (const [key, body] of v1) {
      if (i % 10 === 1) v2.set(key.replace(/\.js$/, ".v2.js"), "v2 new");
      else v2.set(key, i % 10 === 0 ? `v2 ${key}` : body);
      i++;
    }
    const differing = FILES / 5;
    revision = "bbbbbbbbbbbb";
    await writeDist(`${repo}/dist`, v2);
    await runDeploy(input({ tags: { ...TAGS, build: "2" } }));

    // Roll back to build 1: its kept output is within the retention and complete.
    const at = { s3, bucket: BUCKET };
    const method = await chooseRollbackMethod(at, "aaaaaaaaaaaa", Date.now(), 30);
    assert.equal(method.method, "restore");
    const manifest = method.manifest;
    assert.equal(manifest.files.length, FILES);
    const restore = input({ source: { storedOutput: manifest }, noBuild: false, force: true });

    // A fault halfway: the copies past the first half are refused; the run fails, having
    // changed part of the site, and leaves its paths owed.
    s3srv.fail("CopyObject", { code: "AccessDenied", status: 403, after: differing / 2 });
    await assert.rejects(runDeploy(restore), (err: DeployError) => {
      assert.equal(err.code, "aws_access_denied");
      return true;
    });
    const owed = JSON.parse((await getText(at, owedInvalidationKey("production")))!);
    assert.ok(owed.all === true || owed.keys.length > 0, "the failed run's changes are owed");

    // The re-run converges: only what still differs is copied, and everything owed is
    // invalidated.
    const invalidationsBefore = cf.state.invalidations.length;
    const rerun = await runDeploy(restore);
    // Half the differing paths were copied before the fault, and the deletions, which come
    // last, had not started.
    assert.ok(
      rerun.uploaded > 0 && rerun.uploaded <= differing / 2,
      `re-run copied ${rerun.uploaded}`,
    );
    assert.equal(rerun.deleted, FILES / 10);
    assert.equal(cf.state.invalidations.length, invalidationsBefore + 1);
    // Everything the rollback changed, the failed run's share included (10,000 files: `/*`).
    const changed = [...v1.keys(), ...v2.keys()].filter((k) => v1.get(k) !== v2.get(k));
    assert.deepEqual(cf.state.invalidations.at(-1)!.paths, planInvalidation(changed, 1000));

    // Exactly the target manifest: keys and contents, headers, tags.
    const live = await listSite({ s3, bucket: BUCKET, prefix: "site/" });
    assert.deepEqual(
      live.map((o) => [o.key, o.md5]).sort(),
      manifest.files.map((f) => [f.key, f.md5]).sort(),
    );
    // Headers as the emulator stored them (its metadata files; 10,000 HEADs would be slow).
    const wrongHeaders: string[] = [];
    await mapLimited(manifest.files, 16, async (f) => {
      const stored = JSON.parse(
        await Deno.readTextFile(
          `${s3srv.s3rver.directory}/${BUCKET}/site/${f.key}._S3rver_metadata.json`,
        ),
      );
      if (
        stored["content-type"] !== f.contentType || stored["cache-control"] !== f.cacheControl ||
        stored["x-amz-meta-md5"] !== f.md5
      ) wrongHeaders.push(f.key);
    });
    assert.deepEqual(wrongHeaders, []);
    // And as a client reads them, for a restored page.
    const page = manifest.files.find((f) => f.key === "p0/index.html")!;
    const head = await s3.send(
      new HeadObjectCommand({ Bucket: BUCKET, Key: "site/p0/index.html" }),
    );
    assert.deepEqual([head.ContentType, head.CacheControl], [page.contentType, page.cacheControl]);
    const wantTags = new URLSearchParams(manifest.tags).toString();
    const wrongTags = manifest.files.filter((f) =>
      s3srv.state.objectTagging.get(`${BUCKET}/site/${f.key}`) !== wantTags
    );
    assert.deepEqual(wrongTags.map((f) => f.key), []);

    // A third run finds nothing to do.
    const again = await runDeploy(restore);
    assert.deepEqual([again.uploaded, again.deleted, again.unchanged], [0, 0, FILES]);
  } finally {
    s3.destroy();
    cloudfront.destroy();
    await Deno.remove(repo, { recursive: true });
  }
});
