/**
 * The local and the MicroVM builder run the same build-and-publish job: for the same site and
 * the same job input, the same objects (keys, bodies, Content-Type, Cache-Control, tags) and
 * the same SEO files end up in S3, and the same outcome comes back. The MicroVM runs in the
 * MicroVMs fake, whose run hook executes the real agent (`runAgentJob`) against s3rver.
 */
import assert from "node:assert/strict";
import { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import { LambdaMicrovmsClient } from "@aws-sdk/client-lambda-microvms";
import {
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from "@aws-sdk/client-s3";
import { FixedClock, silentLogger } from "@org/shared";
import type { Builder } from "../../../deploy/builders/builder.ts";
import { createLocalBuilder } from "../../../deploy/builders/local.ts";
import { createMicrovmBuilder } from "../../../deploy/builders/microvm/builder.ts";
import { fixtureSiteZip } from "../../../deploy/builders/microvm/agent/_fixture_site.ts";
import type { JobInput, JobOutcome } from "../../../deploy/job/job.ts";
import { startLogsFake } from "../../fakes/logs.ts";
import { startMicrovmsFake } from "../../fakes/microvms.ts";
import { startS3, testAwsConfig } from "../../support/s3.ts";
import { agentRun, builderSeams, fakeBundle } from "../../support/microvm_builder.ts";

const LOCAL_BUCKET = "local-blog-123456789012";
const VM_BUCKET = "microvm-blog-123456789012";

/** An S3 client that also notes the `x-amz-tagging` sent per key (s3rver does not keep tags). */
function recordingS3(endpoint: string, tags: Map<string, string>): S3Client {
  const s3 = new S3Client({ ...testAwsConfig, endpoint, forcePathStyle: true });
  s3.middlewareStack.add((next) => (args) => {
    const headers = (args.request as { headers?: Record<string, string> }).headers ?? {};
    const key = (args.input as { Key?: string }).Key;
    if (key && headers["x-amz-tagging"] !== undefined) tags.set(key, headers["x-amz-tagging"]);
    return next(args);
  }, { step: "finalizeRequest" });
  return s3;
}

/** Every object under `site/`: body and the headers a browser and the CDN see, and its tags. */
async function published(s3: S3Client, bucket: string, tags: Map<string, string>) {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: "site/" }));
  const out: Record<string, unknown> = {};
  for (const key of (listed.Contents ?? []).map((o) => o.Key!).sort()) {
    const head = await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
    const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    out[key] = {
      body: await got.Body!.transformToString(),
      contentType: head.ContentType,
      cacheControl: head.CacheControl,
      tags: tags.get(key),
    };
  }
  return out;
}

function jobInput(zip: string, bucket: string): JobInput {
  return {
    buildId: "abc123",
    source: { zip },
    paths: { app: ".", dist: "dist" },
    maxDurationSeconds: 600,
    target: { bucket, prefix: "site/" },
    tags: { app: "blog", environment: "production" },
    seo: { robots: "auto", sitemap: "auto" },
    production: true,
    origin: "https://blog.example.com",
  };
}

/** What both builders must agree on (the bucket differs by design). */
function comparable(outcome: JobOutcome) {
  return {
    changedKeys: [...outcome.changedKeys].sort(),
    uploaded: outcome.uploaded,
    deleted: outcome.deleted,
    unchanged: outcome.unchanged,
    bytesUploaded: outcome.bytesUploaded,
  };
}

Deno.test("builders: the local and the MicroVM builder publish the same objects, headers, tags and SEO files", async () => {
  await using s3srv = await startS3([LOCAL_BUCKET, VM_BUCKET]);
  const clock = new FixedClock(Date.parse("2026-05-01T10:00:00.000Z"));
  await using logs = startLogsFake({ now: () => clock.now() });
  const localTags = new Map<string, string>();
  const vmTags = new Map<string, string>();
  const localS3 = recordingS3(s3srv.endpoint, localTags);
  const vmS3 = recordingS3(s3srv.endpoint, vmTags);
  await using vms = startMicrovmsFake({
    imageReadyAfterReads: 1,
    runningAfterReads: 0,
    now: () => clock.now(),
    onRun: agentRun((group, stream, lines) => logs.state.append(group, stream, lines), () => ({
      s3: vmS3,
    })),
  });
  const microvms = new LambdaMicrovmsClient({ ...testAwsConfig, endpoint: vms.endpoint });
  const logsClient = new CloudWatchLogsClient({ ...testAwsConfig, endpoint: logs.endpoint });
  const site = await fixtureSiteZip();
  try {
    const local: Builder = createLocalBuilder({ s3: localS3, logger: silentLogger });
    const microvm: Builder = createMicrovmBuilder({
      clients: { microvms, logs: logsClient, s3: vmS3 },
      env: "production",
      siteName: "blog",
      region: "us-east-1",
      microvm: {
        memory: 2,
        maxDurationSeconds: 600,
        idle: {
          autoResumeEnabled: false,
          maxIdleDurationSeconds: 300,
          suspendedDurationSeconds: 60,
        },
      },
      image: {
        baseImageArn: "arn:aws:lambda:us-east-1:aws:microvm-image:deno",
        buildRoleArn: "arn:aws:iam::123456789012:role/builder",
      },
      ...builderSeams(clock, { bundle: fakeBundle("a") }),
      pollIntervalMs: 10,
    });

    const fromLocal = await local.run(jobInput(site.zip, LOCAL_BUCKET));
    const fromVm = await microvm.run(jobInput(site.zip, VM_BUCKET));

    assert.deepEqual(comparable(fromVm), comparable(fromLocal));
    const localObjects = await published(localS3, LOCAL_BUCKET, localTags);
    const vmObjects = await published(vmS3, VM_BUCKET, vmTags);
    assert.deepEqual(vmObjects, localObjects);
    // The same SEO files, and the site itself, are among them.
    assert.deepEqual(Object.keys(localObjects), [
      "site/app.css",
      "site/blog/index.html",
      "site/index.html",
      "site/robots.txt",
      "site/sitemap.xml",
    ]);
    assert.match(
      (localObjects["site/robots.txt"] as { body: string }).body,
      /Sitemap: https:\/\/blog\.example\.com\/sitemap\.xml/,
    );
    assert.equal(
      (localObjects["site/index.html"] as { tags: string }).tags,
      "app=blog&environment=production",
    );
  } finally {
    await site.dispose();
    localS3.destroy();
    vmS3.destroy();
    microvms.destroy();
    logsClient.destroy();
  }
});
