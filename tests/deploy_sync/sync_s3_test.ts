import assert from "node:assert/strict";
import { HeadObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import { startS3, testAwsConfig } from "../support/s3.ts";
import { syncSite } from "../../deploy/sync/engine.ts";
import { listSite } from "../../deploy/sync/remote.ts";
import { planInvalidation } from "../../deploy/cdn/invalidation.ts";
import { createInvalidation } from "../../deploy/cdn/invalidate.ts";
import { startCloudFrontFake } from "./cloudfront_fake.ts";

async function writeSite(dir: string, files: Record<string, string>) {
  for (const [key, body] of Object.entries(files)) {
    const path = `${dir}/${key}`;
    await Deno.mkdir(path.slice(0, path.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(path, body);
  }
}

Deno.test("syncSite() uploads with MIME, cache, tags and MD5, then an identical redeploy does nothing", async () => {
  await using s3srv = await startS3(["site-bucket"]);
  await using cf = startCloudFrontFake();
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  const cloudfront = new CloudFrontClient({ ...testAwsConfig, endpoint: cf.endpoint });
  const sentTagging: string[] = [];
  const putOrder: string[] = [];
  s3.middlewareStack.add((next) => (args) => {
    const headers = (args.request as { headers?: Record<string, string> }).headers ?? {};
    if (headers["x-amz-tagging"] !== undefined) sentTagging.push(headers["x-amz-tagging"]);
    const input = args.input as { Key?: string; Body?: unknown };
    if (input.Body !== undefined && input.Key) putOrder.push(input.Key);
    return next(args);
  }, { step: "finalizeRequest" });
  const dist = await Deno.makeTempDir();
  try {
    await writeSite(dist, {
      "index.html": "<h1>hi</h1>",
      "a/index.html": "<p>a</p>",
      "_astro/app.1a2b3c4d.js": "console.log(1)",
      "logo.png": "png",
    });
    const site = {
      s3,
      bucket: "site-bucket",
      prefix: "site/",
      distDir: dist,
      tags: { app: "example.com", environment: "production" },
    };
    const first = await syncSite(site);
    assert.deepEqual(first.uploaded, [
      "_astro/app.1a2b3c4d.js",
      "logo.png",
      "a/index.html",
      "index.html",
    ]);
    // Pages go up only once every asset is up.
    assert.deepEqual(putOrder.slice(2).sort(), ["site/a/index.html", "site/index.html"]);
    const head = await s3.send(
      new HeadObjectCommand({ Bucket: "site-bucket", Key: "site/index.html" }),
    );
    assert.equal(head.ContentType, "text/html; charset=utf-8");
    assert.equal(head.CacheControl, "public, max-age=0, must-revalidate");
    const js = await s3.send(
      new HeadObjectCommand({ Bucket: "site-bucket", Key: "site/_astro/app.1a2b3c4d.js" }),
    );
    assert.equal(js.CacheControl, "public, max-age=31536000, immutable");
    // s3rver ignores x-amz-tagging on PUT (real S3 applies it), so check what was sent.
    assert.deepEqual([...new Set(sentTagging)], ["app=example.com&environment=production"]);
    assert.equal(sentTagging.length, 4);

    const again = await syncSite(site);
    assert.deepEqual(again.uploaded, []);
    assert.deepEqual(again.deleted, []);
    assert.equal(again.unchanged, 4);
    const paths = planInvalidation(again.changedKeys, 1000);
    assert.equal(await createInvalidation(cloudfront, "E1", paths, "b1"), undefined);
    assert.equal(cf.invalidations.length, 0);

    await Deno.writeTextFile(`${dist}/a/index.html`, "<p>a2</p>");
    await Deno.remove(`${dist}/logo.png`);
    const third = await syncSite(site);
    assert.deepEqual(third.uploaded, ["a/index.html"]);
    assert.deepEqual(third.deleted, ["logo.png"]);
    const sent = await createInvalidation(
      cloudfront,
      "E1",
      planInvalidation(third.changedKeys, 1000),
      "b3",
    );
    assert.deepEqual(sent?.paths, ["/a", "/a/", "/a/index.html", "/logo.png"]);
    assert.deepEqual(cf.invalidations, [{
      distributionId: "E1",
      callerReference: sent!.callerReference,
      paths: ["/a", "/a/", "/a/index.html", "/logo.png"],
    }]);
  } finally {
    s3.destroy();
    cloudfront.destroy();
    await Deno.remove(dist, { recursive: true });
  }
});

Deno.test("listSite() returns site-relative keys with the single-part ETag as MD5", async () => {
  await using s3srv = await startS3(["b"]);
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  try {
    await s3.send(new PutObjectCommand({ Bucket: "b", Key: "site/x.txt", Body: "x" }));
    const listed = await listSite({ s3, bucket: "b", prefix: "site/" });
    assert.deepEqual(listed, [{ key: "x.txt", size: 1, md5: "9dd4e461268c8034f5c8564e155c67a6" }]);
  } finally {
    s3.destroy();
  }
});
