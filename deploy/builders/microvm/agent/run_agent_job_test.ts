import assert from "node:assert/strict";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { FixedClock } from "@org/shared";
import { startS3, testAwsConfig } from "../../../../tests/support/s3.ts";
import { getBuildRecord, getManifest } from "../../../build_records/store.ts";
import { FIXTURE_BUCKET, fixtureJob, fixtureSiteZip } from "./_fixture_site.ts";
import { runAgentJob } from "./run_agent_job.ts";

const BUCKET = FIXTURE_BUCKET;

const job = fixtureJob;

async function text(s3: S3Client, key: string): Promise<string> {
  const out = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return await out.Body!.transformToString();
}

Deno.test("agent: builds with deno task, syncs with SEO files, stores manifest and record, logs done", async () => {
  await using s3srv = await startS3([BUCKET]);
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  const site = await fixtureSiteZip();
  try {
    const body = await Deno.readFile(site.zip);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: "build/abc123.zip", Body: body }));
    const lines: string[] = [];
    const clock = new FixedClock(Date.parse("2026-05-01T10:01:30.000Z"));
    const outcome = await runAgentJob(job("abc123"), { s3, log: (l) => lines.push(l), clock });

    assert.equal(outcome.ok, true, lines.join("\n"));
    assert.equal(lines.at(-1), "build:done:abc123");
    assert.equal(await text(s3, "site/index.html"), "<h1>home</h1>\n");
    assert.equal(await text(s3, "site/blog/index.html"), "<h1>blog</h1>\n");
    assert.match(await text(s3, "site/robots.txt"), /Allow: \/\n\nSitemap: https:\/\/blog/);
    assert.match(await text(s3, "site/sitemap.xml"), /https:\/\/blog.example.com\/blog\//);
    const at = { s3, bucket: BUCKET };
    const manifest = await getManifest(at, "abc123");
    assert.deepEqual([...manifest!.changedKeys].sort(), [
      "app.css",
      "blog/index.html",
      "index.html",
      "robots.txt",
      "sitemap.xml",
    ]);
    const record = await getBuildRecord(at, "abc123");
    assert.equal(record?.status, "done");
    assert.equal(record?.durationMs, 90_000);
    assert.equal(record?.uploaded, 5);

    // An identical rebuild changes nothing, so the manifest is empty.
    const again = await runAgentJob(job("abc123"), { s3, log: () => {}, clock });
    assert.ok(again.ok);
    assert.deepEqual(again.manifest.changedKeys, []);

    // A refresh re-uploads every file, and every one is stale on the CDN (old headers).
    const refreshed = await runAgentJob({ ...job("abc123"), refresh: true }, {
      s3,
      log: () => {},
      clock,
    });
    assert.ok(refreshed.ok);
    assert.equal(refreshed.manifest.uploaded, 5);
    assert.deepEqual([...refreshed.manifest.changedKeys].sort(), [
      "app.css",
      "blog/index.html",
      "index.html",
      "robots.txt",
      "sitemap.xml",
    ]);
  } finally {
    await site.dispose();
  }
});

Deno.test("agent: a failing build logs build:failed with the reason and records it", async () => {
  await using s3srv = await startS3([BUCKET]);
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  const site = await fixtureSiteZip("echo compiling && exit 3");
  try {
    const body = await Deno.readFile(site.zip);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: "build/bad1.zip", Body: body }));
    const lines: string[] = [];
    const outcome = await runAgentJob(job("bad1"), { s3, log: (l) => lines.push(l) });
    assert.equal(outcome.ok, false);
    assert.ok(lines.includes("compiling"), lines.join("\n"));
    assert.match(lines.at(-1)!, /^build:failed:bad1:build_failed: deno task build failed/);
    const record = await getBuildRecord({ s3, bucket: BUCKET }, "bad1");
    assert.equal(record?.status, "failed");
    assert.match(record?.reason ?? "", /exit code 3/);
  } finally {
    await site.dispose();
  }
});

Deno.test("agent: a missing source zip fails the job with build_source_missing", async () => {
  await using s3srv = await startS3([BUCKET]);
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  const lines: string[] = [];
  const outcome = await runAgentJob(job("gone"), { s3, log: (l) => lines.push(l) });
  assert.equal(outcome.ok, false);
  assert.match(lines.at(-1)!, /^build:failed:gone:build_source_missing:/);
});
