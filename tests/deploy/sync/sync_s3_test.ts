import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createMemoryLogger } from "@org/shared";
import {
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import { startS3, testAwsConfig } from "../../support/s3.ts";
import type { DeployError } from "../../../deploy/errors.ts";
import { syncSite } from "../../../deploy/sync/engine.ts";
import { listSite } from "../../../deploy/sync/remote.ts";
import { planInvalidation } from "../../../deploy/cdn/plan_invalidation.ts";
import { createInvalidation } from "../../../deploy/cdn/send_invalidation.ts";
import { startCloudFrontFake } from "../../fakes/cloudfront.ts";

/** An S3 client on the fixture's s3rver; `using` destroys it at the end of the scope. */
function s3Of(s3srv: { endpoint: string }): S3Client & Disposable {
  const client = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  return Object.assign(client, { [Symbol.dispose]: () => client.destroy() });
}

/** Where every sync of these tests goes. */
const SITE = { bucket: "site-bucket", prefix: "site/" } as const;

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
  cf.state.seedDistribution("E1");
  using s3 = s3Of(s3srv);
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
      ...SITE,
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
    assert.equal(cf.state.invalidations.length, 0);

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
    const sentBatches = cf.state.invalidations.map((
      { distributionId, callerReference, paths },
    ) => ({
      distributionId,
      callerReference,
      paths,
    }));
    assert.deepEqual(sentBatches, [{
      distributionId: "E1",
      callerReference: sent!.callerReference,
      paths: ["/a", "/a/", "/a/index.html", "/logo.png"],
    }]);
  } finally {
    cloudfront.destroy();
    await Deno.remove(dist, { recursive: true });
  }
});

Deno.test("listSite() returns site-relative keys with the single-part ETag as MD5", async () => {
  await using s3srv = await startS3(["b"]);
  using s3 = s3Of(s3srv);
  await s3.send(new PutObjectCommand({ Bucket: "b", Key: "site/x.txt", Body: "x" }));
  const listed = await listSite({ s3, bucket: "b", prefix: "site/" });
  assert.deepEqual(listed, [{ key: "x.txt", size: 1, md5: "9dd4e461268c8034f5c8564e155c67a6" }]);
});

/** A site with one file of `size` pseudo-random bytes at `key`, and its MD5. */
async function bigFileSite(key: string, size: number): Promise<{ dir: string; md5: string }> {
  const dir = await Deno.makeTempDir();
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i += 65536) crypto.getRandomValues(bytes.subarray(i, i + 65536));
  await Deno.mkdir(`${dir}/media`, { recursive: true });
  await Deno.writeFile(`${dir}/${key}`, bytes);
  await Deno.writeTextFile(`${dir}/index.html`, "<video src=/media/talk.mp4></video>");
  return { dir, md5: createHash("md5").update(bytes).digest("hex") };
}

/** Records each S3 operation sent (by command name) and lets a test fail chosen calls. */
function recordOps(s3: S3Client, fail?: (op: string, n: number) => Error | undefined): string[] {
  const ops: string[] = [];
  s3.middlewareStack.add((next, context) => (args) => {
    const op = String(context.commandName).replace(/Command$/, "");
    ops.push(op);
    const err = fail?.(op, ops.filter((o) => o === op).length);
    return err ? Promise.reject(err) : next(args);
  }, { step: "initialize" });
  return ops;
}

const MiB = 1024 * 1024;

Deno.test("syncSite() uploads a large file in parts, one part in memory, and finds it unchanged next time", async () => {
  await using s3srv = await startS3(["site-bucket"]);
  using s3 = s3Of(s3srv);
  const ops = recordOps(s3);
  const { dir, md5 } = await bigFileSite("media/talk.mp4", 12 * MiB + 1);
  try {
    const progress: number[] = [];
    const site = {
      s3,
      ...SITE,
      distDir: dir,
      tags: { app: "example.com", environment: "production" },
      multipart: { threshold: 5 * MiB, partSize: 5 * MiB },
      onProgress: (p: { bytes: number }) => progress.push(p.bytes),
    };
    const first = await syncSite(site);
    assert.deepEqual(first.uploaded, ["media/talk.mp4", "index.html"]);
    assert.equal(first.bytesUploaded, 12 * MiB + 1 + 35);
    assert.deepEqual(ops.filter((o) => /Multipart|Part/.test(o)), [
      "CreateMultipartUpload",
      "UploadPart",
      "UploadPart",
      "UploadPart",
      "CompleteMultipartUpload",
    ]);
    // The bar moves part by part, not only at the end of the file.
    assert.ok(progress.includes(5 * MiB) && progress.includes(10 * MiB), String(progress));
    const got = await s3.send(
      new GetObjectCommand({ Bucket: "site-bucket", Key: "site/media/talk.mp4" }),
    );
    const body = await got.Body!.transformToByteArray();
    assert.equal(createHash("md5").update(body).digest("hex"), md5);
    assert.equal(got.ContentType, "video/mp4");
    assert.equal(got.CacheControl, "public, max-age=0, must-revalidate");
    assert.equal(got.Metadata?.md5, md5);

    ops.length = 0;
    const again = await syncSite(site);
    assert.deepEqual(again.uploaded, []);
    assert.equal(again.unchanged, 2);
    assert.ok(!ops.some((o) => /Put|Part|Multipart/.test(o)), ops.join());
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("syncSite() retries a failed part alone, and aborts the upload when a part keeps failing", async () => {
  await using s3srv = await startS3(["site-bucket"]);
  const slowDown = () =>
    Object.assign(new Error("Please reduce your request rate."), {
      name: "SlowDown",
      $metadata: { httpStatusCode: 503 },
    });
  const denied = () =>
    Object.assign(new Error("Access Denied"), {
      name: "AccessDenied",
      $metadata: { httpStatusCode: 403 },
    });
  const { dir } = await bigFileSite("media/talk.mp4", 11 * MiB);
  const site = (s3: S3Client) => ({
    s3,
    ...SITE,
    distDir: dir,
    tags: {},
    multipart: { threshold: 5 * MiB, partSize: 5 * MiB },
    retry: { sleep: () => Promise.resolve() },
  });
  using flaky = s3Of(s3srv);
  using broken = s3Of(s3srv);
  try {
    const ops = recordOps(
      flaky,
      (op, n) => op === "UploadPart" && n === 2 ? slowDown() : undefined,
    );
    await syncSite(site(flaky));
    assert.deepEqual(ops.filter((o) => o === "UploadPart").length, 4, "part 2 twice, 1 and 3 once");
    assert.ok(!ops.includes("AbortMultipartUpload"));

    await Deno.writeFile(`${dir}/media/talk.mp4`, new Uint8Array(11 * MiB).fill(7));
    const failing = recordOps(
      broken,
      (op, n) => op === "UploadPart" && n >= 2 ? denied() : undefined,
    );
    await assert.rejects(syncSite(site(broken)), (err: DeployError) => {
      assert.equal(err.code, "aws_access_denied");
      assert.equal(
        err.message,
        "access denied: s3:PutObject on s3://site-bucket/site/media/talk.mp4",
      );
      return true;
    });
    assert.equal(failing.filter((o) => o === "UploadPart").length, 2, "a 403 is not retried");
    assert.ok(failing.includes("AbortMultipartUpload"));
    assert.ok(!failing.includes("CompleteMultipartUpload"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("syncSite() refuses to complete a large file that changed while it was going up", async () => {
  await using s3srv = await startS3(["site-bucket"]);
  using s3 = s3Of(s3srv);
  const { dir } = await bigFileSite("media/talk.mp4", 11 * MiB);
  const path = `${dir}/media/talk.mp4`;
  const ops = recordOps(s3, (op, n) => {
    // The build rewrites the file after the scan hashed it: the last part now differs.
    if (op === "UploadPart" && n === 1) Deno.writeFileSync(path, new Uint8Array(11 * MiB).fill(1));
    return undefined;
  });
  try {
    await assert.rejects(
      syncSite({
        s3,
        ...SITE,
        distDir: dir,
        tags: {},
        multipart: { threshold: 5 * MiB, partSize: 5 * MiB },
      }),
      { code: "dist_changed", message: `${path} changed while the deploy was uploading it` },
    );
    assert.ok(ops.includes("AbortMultipartUpload"));
    assert.ok(!ops.includes("CompleteMultipartUpload"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("syncSite() aborts the multipart upload when the file is gone before its parts are read", async () => {
  await using s3srv = await startS3(["site-bucket"]);
  using s3 = s3Of(s3srv);
  const { dir } = await bigFileSite("media/talk.mp4", 6 * MiB);
  const created: Record<string, unknown>[] = [];
  s3.middlewareStack.add((next, context) => (args) => {
    if (context.commandName === "CreateMultipartUploadCommand") {
      created.push(args.input as Record<string, unknown>);
      Deno.removeSync(`${dir}/media/talk.mp4`);
    }
    return next(args);
  }, { step: "initialize" });
  const ops = recordOps(s3);
  try {
    await assert.rejects(
      syncSite({
        s3,
        ...SITE,
        distDir: dir,
        tags: {},
        multipart: { threshold: 5 * MiB, partSize: 5 * MiB },
      }),
      { code: "dist_changed" },
    );
    // The upload states its checksum type, so S3 takes the SDK's part checksums.
    assert.equal(created[0]?.ChecksumAlgorithm, "CRC32");
    assert.deepEqual(ops, [
      "GetBucketEncryption",
      "ListObjectsV2",
      "CreateMultipartUpload",
      "AbortMultipartUpload",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("syncSite() under default SSE-KMS compares the stored MD5s, not the ETags", async () => {
  await using s3srv = await startS3(["site-bucket"]);
  using s3 = s3Of(s3srv);
  // s3rver has neither bucket encryption nor KMS ETags: answer GetBucketEncryption with a KMS
  // default, and give listed objects ETags that are not their MD5, as S3 does under SSE-KMS.
  let kms = false;
  s3.middlewareStack.add((next, context) => async (args) => {
    if (kms && context.commandName === "GetBucketEncryptionCommand") {
      return {
        response: {},
        output: {
          $metadata: {},
          ServerSideEncryptionConfiguration: {
            Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: "aws:kms" } }],
          },
        },
      } as never;
    }
    const result = await next(args);
    if (kms && context.commandName === "ListObjectsV2Command") {
      const out = result.output as { Contents?: { ETag?: string }[] };
      for (const o of out.Contents ?? []) o.ETag = `"${"ab".repeat(16)}"`;
    }
    return result;
  }, { step: "initialize" });
  const ops = recordOps(s3);
  const dist = await Deno.makeTempDir();
  try {
    await writeSite(dist, { "index.html": "<h1>hi</h1>", "a.css": "a{}" });
    const site = { s3, ...SITE, distDir: dist, tags: {} };
    assert.deepEqual((await syncSite(site)).uploaded, ["a.css", "index.html"]);
    kms = true;
    ops.length = 0;
    const again = await syncSite(site);
    assert.deepEqual(again.uploaded, [], "the metadata MD5s match: nothing re-uploaded");
    assert.equal(ops.filter((o) => o === "HeadObject").length, 2);
    await Deno.writeTextFile(`${dist}/a.css`, "a{color:red}");
    assert.deepEqual((await syncSite(site)).uploaded, ["a.css"]);
  } finally {
    await Deno.remove(dist, { recursive: true });
  }
});

/** Answers `GetBucketEncryption` as `answer` says (s3rver has no such API), counting the calls. */
function encryption(s3: S3Client, answer: () => string | Error): { calls: number } {
  const seen = { calls: 0 };
  s3.middlewareStack.add((next, context) => (args) => {
    if (context.commandName !== "GetBucketEncryptionCommand") return next(args);
    seen.calls++;
    const a = answer();
    if (a instanceof Error) return Promise.reject(a);
    return Promise.resolve({
      response: {},
      output: {
        $metadata: {},
        ServerSideEncryptionConfiguration: {
          Rules: [{ ApplyServerSideEncryptionByDefault: { SSEAlgorithm: a } }],
        },
      },
    } as never);
  }, { step: "initialize" });
  return seen;
}

const awsError = (name: string, status: number) =>
  Object.assign(new Error(name), { name, $metadata: { httpStatusCode: status } });

Deno.test("syncSite() trusts ETags under SSE-S3, warns when the encryption is denied, retries a blip", async () => {
  await using s3srv = await startS3(["site-bucket"]);
  const dist = await Deno.makeTempDir();
  await writeSite(dist, { "index.html": "<h1>hi</h1>", "a.css": "a{}" });
  const run = async (answer: () => string | Error) => {
    using s3 = s3Of(s3srv);
    const seen = encryption(s3, answer);
    const ops = recordOps(s3);
    const { log, lines } = createMemoryLogger("warn");
    const r = await syncSite({
      s3,
      ...SITE,
      distDir: dist,
      tags: {},
      logger: log,
      retry: { sleep: () => Promise.resolve() },
    });
    return { r, heads: ops.filter((o) => o === "HeadObject").length, lines, seen };
  };
  try {
    assert.deepEqual((await run(() => "AES256")).r.uploaded, ["a.css", "index.html"]);
    const sse = await run(() => "AES256");
    assert.deepEqual([sse.r.uploaded, sse.heads, sse.lines], [[], 0, []]);

    const denied = await run(() => awsError("AccessDenied", 403));
    assert.deepEqual([denied.r.uploaded, denied.heads], [[], 0]);
    assert.match(String(denied.lines[0]?.msg), /s3:GetEncryptionConfiguration denied/);

    let n = 0;
    const blip = await run(() => ++n === 1 ? awsError("SlowDown", 503) : "aws:kms");
    assert.equal(blip.seen.calls, 2, "retried");
    assert.deepEqual([blip.r.uploaded, blip.heads], [[], 2]);

    const down = await run(() => awsError("InternalError", 500));
    assert.deepEqual([down.r.uploaded, down.heads], [[], 2], "unknown: compare stored MD5s");
    assert.match(String(down.lines[0]?.msg), /comparing each object's stored MD5/);
  } finally {
    await Deno.remove(dist, { recursive: true });
  }
});

Deno.test("syncSite() reports a small file that changed after the scan as dist_changed", async () => {
  await using s3srv = await startS3(["site-bucket"]);
  using s3 = s3Of(s3srv);
  // Real S3 checks Content-MD5 (s3rver does not) and answers BadDigest when the bytes differ.
  recordOps(s3, (op) => op === "PutObject" ? awsError("BadDigest", 400) : undefined);
  const dist = await Deno.makeTempDir();
  try {
    await writeSite(dist, { "a.css": "a{}" });
    await assert.rejects(
      syncSite({ s3, ...SITE, distDir: dist, tags: {} }),
      { code: "dist_changed", message: `${dist}/a.css changed while the deploy was uploading it` },
    );
  } finally {
    await Deno.remove(dist, { recursive: true });
  }
});

Deno.test("syncSite() with retention keeps dropped assets live, deletes dropped pages, and leaves earlier kept files out of the delete guard", async () => {
  await using s3srv = await startS3(["site-bucket"]);
  using s3 = s3Of(s3srv);
  const dist = await Deno.makeTempDir();
  const day = 86_400_000;
  const t0 = Date.parse("2026-06-01T00:00:00.000Z");
  const asset = (i: number) => `assets/a${String(i).padStart(2, "0")}.js`;
  try {
    const files: Record<string, string> = { "index.html": "<h1>1</h1>", "old.html": "old" };
    for (let i = 0; i < 20; i++) files[asset(i)] = `a${i}`;
    await writeSite(dist, files);
    const site = { s3, ...SITE, distDir: dist, tags: {} };
    const retention = (
      kept: readonly { key: string; size: number; since: string }[],
      at: number,
    ) => ({ previousDays: 7, kept, nowMs: at });
    await syncSite({ ...site, retention: retention([], t0) });

    // Build 2 drops ten assets and a page: the page goes, the assets stay for open tabs.
    for (let i = 0; i < 10; i++) await Deno.remove(`${dist}/${asset(i)}`);
    await Deno.remove(`${dist}/old.html`);
    const second = await syncSite({ ...site, retention: retention([], t0 + day) });
    assert.deepEqual(second.deleted, ["old.html"]);
    assert.deepEqual(second.changedKeys, ["old.html"]);
    assert.equal(second.kept.length, 10);
    assert.deepEqual(second.kept[0], { key: asset(0), size: 2, since: "2026-06-02T00:00:00.000Z" });
    assert.equal((await listSite({ s3, ...SITE })).length, 21, "20 assets and index.html");

    // Build 3 drops five more: 15 live files gone, but only 5 leave this build, so no refusal.
    for (let i = 10; i < 15; i++) await Deno.remove(`${dist}/${asset(i)}`);
    const third = await syncSite({ ...site, retention: retention(second.kept, t0 + 2 * day) });
    assert.deepEqual(third.deleted, []);
    assert.equal(third.kept.length, 15);
    assert.equal(third.kept[0]!.since, "2026-06-02T00:00:00.000Z", "the grace is not restarted");

    // Past the first ten's grace they go, the five later ones stay.
    const fourth = await syncSite({ ...site, retention: retention(third.kept, t0 + 8 * day) });
    assert.deepEqual(fourth.deleted, Array.from({ length: 10 }, (_, i) => asset(i)));
    assert.deepEqual(fourth.expired, fourth.deleted);
    assert.deepEqual(fourth.kept.map((k) => k.key), [10, 11, 12, 13, 14].map(asset));
    assert.equal((await listSite({ s3, ...SITE })).length, 11);
  } finally {
    await Deno.remove(dist, { recursive: true });
  }
});
