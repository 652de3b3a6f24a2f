/**
 * The site's life cycle through the real CLI against each AWS emulator: bootstrap, deploy,
 * identical redeploy, a one-file change, status, plan, a dropped file kept for open tabs,
 * rollback (a server-side restore), delete, destroy; each step judged by the emulator's own
 * list and describe answers.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  GetObjectCommand,
  GetObjectTaggingCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  S3Client,
} from "@aws-sdk/client-s3";
import {
  CloudFrontClient,
  GetDistributionConfigCommand,
  GetFunctionCommand,
  ListDistributionsCommand,
  ListFunctionsCommand,
  ListInvalidationsCommand,
  ListOriginAccessControlsCommand,
} from "@aws-sdk/client-cloudfront";
import { CloudWatchLogsClient, DescribeLogGroupsCommand } from "@aws-sdk/client-cloudwatch-logs";
import { SITE_KEYS } from "../../deploy/site_repo.ts";
import { EMULATORS, ok, type PeerWorld, SITE, startPeerWorld } from "./peer_world.ts";

const LIVE_KEYS = [...SITE_KEYS, "robots.txt", "sitemap.xml"].sort();

async function liveKeys(world: PeerWorld, bucket: string): Promise<string[]> {
  const s3 = world.client(S3Client, "S3");
  try {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: "site/" }));
    return (out.Contents ?? []).map((o) => o.Key!.slice("site/".length)).sort();
  } finally {
    s3.destroy();
  }
}

async function cloudfrontState(world: PeerWorld) {
  const cf = world.client(CloudFrontClient, "CLOUDFRONT");
  try {
    const dists = (await cf.send(new ListDistributionsCommand({}))).DistributionList?.Items ?? [];
    const fns =
      (await cf.send(new ListFunctionsCommand({ Stage: "DEVELOPMENT" }))).FunctionList?.Items ?? [];
    const oacs = (await cf.send(new ListOriginAccessControlsCommand({})))
      .OriginAccessControlList?.Items ?? [];
    const invalidations = [];
    for (const d of dists) {
      const list = await cf.send(new ListInvalidationsCommand({ DistributionId: d.Id! }));
      invalidations.push(...(list.InvalidationList?.Items ?? []));
    }
    return { dists, fns, oacs, invalidations };
  } finally {
    cf.destroy();
  }
}

async function logGroups(world: PeerWorld): Promise<string[]> {
  const logs = world.client(CloudWatchLogsClient, "CLOUDWATCH_LOGS");
  try {
    const out = await logs.send(new DescribeLogGroupsCommand({}));
    return (out.logGroups ?? []).map((g) => g.logGroupName!).sort();
  } finally {
    logs.destroy();
  }
}

async function bucketExists(world: PeerWorld, bucket: string): Promise<boolean> {
  const s3 = world.client(S3Client, "S3");
  try {
    await s3.send(new HeadBucketCommand({ Bucket: bucket }));
    return true;
  } catch {
    return false;
  } finally {
    s3.destroy();
  }
}

for (const name of EMULATORS) {
  Deno.test(`${name}: bootstrap, deploy, redeploy, change, status, plan, rollback, reconfigure, delete, destroy`, async (t) => {
    await using world = await startPeerWorld(name, "site");
    const bucket = `production-blog-${world.emulator.accountId}`;
    let firstBuild = "";
    await world.steps(t, [
      ["bootstrap creates the bucket, OAC, function, distribution and log groups", async () => {
        ok(await world.run(["bootstrap"]), "bootstrap");
        assert.ok(await bucketExists(world, bucket));
        const cf = await cloudfrontState(world);
        assert.equal(cf.dists.length, 1);
        assert.deepEqual(cf.fns.map((f) => f.Name), ["production-blog-rewrite"]);
        assert.deepEqual(cf.oacs.map((o) => o.Name), [bucket]);
        assert.deepEqual(await logGroups(world), [
          "/aws/microvms/production-blog-builder",
          "/blog/production/cloudfront",
        ]);
        ok(await world.run(["bootstrap"]), "a second bootstrap");
        assert.equal((await cloudfrontState(world)).dists.length, 1, "nothing duplicated");
      }],

      ["deploy --builder local uploads every file and invalidates once", async () => {
        const r = await world.run(["deploy", "--builder", "local", "--json"]);
        ok(r, "deploy");
        assert.equal(JSON.parse(r.stdout).uploaded, 6);
        firstBuild = JSON.parse(r.stdout).revision;
        assert.deepEqual(await liveKeys(world, bucket), LIVE_KEYS);
        assert.equal((await cloudfrontState(world)).invalidations.length, 1);
      }],

      ["an identical redeploy uploads and invalidates nothing", async () => {
        const r = await world.run(["deploy", "--builder", "local", "--json"]);
        ok(r, "redeploy");
        const summary = JSON.parse(r.stdout);
        assert.deepEqual([summary.uploaded, summary.deleted, summary.invalidation], [0, 0, null]);
        assert.equal((await cloudfrontState(world)).invalidations.length, 1);
      }],

      ["a one-file change uploads that file and invalidates its paths", async () => {
        await Deno.writeTextFile(join(world.root, "src/blog/index.html"), "<h1>blog v2</h1>");
        const r = await world.run(["deploy", "--builder", "local", "--json"]);
        ok(r, "deploy of the change");
        const summary = JSON.parse(r.stdout);
        assert.deepEqual(summary.changedKeys, ["blog/index.html"]);
        assert.equal((await cloudfrontState(world)).invalidations.length, 2);
        const s3 = world.client(S3Client, "S3");
        try {
          const obj = await s3.send(
            new GetObjectCommand({ Bucket: bucket, Key: "site/blog/index.html" }),
          );
          assert.equal(await obj.Body!.transformToString(), "<h1>blog v2</h1>");
        } finally {
          s3.destroy();
        }
      }],

      ["status reports the resources the emulator holds", async () => {
        const r = await world.run(["status", "--json"]);
        assert.ok(r.stdout.length > 0, r.stderr);
        const status = JSON.parse(r.stdout);
        const dist = (await cloudfrontState(world)).dists[0]!;
        assert.ok(JSON.stringify(status).includes(dist.Id!), "status names the distribution");
      }],

      ["plan after the change has nothing to do", async () => {
        const r = await world.run(["plan", "--json"]);
        ok(r, "plan");
        const plan = JSON.parse(r.stdout);
        assert.deepEqual([plan.uploads, plan.deletes], [[], []]);
      }],

      [
        "a dropped asset stays live for open tabs, listed in the state; status counts it",
        async () => {
          await Deno.remove(join(world.root, "src/img/logo.png"));
          const r = await world.run(["deploy", "--builder", "local", "--json"]);
          ok(r, "deploy without the image");
          const summary = JSON.parse(r.stdout);
          assert.deepEqual([summary.deleted, summary.changedKeys], [0, []]);
          assert.deepEqual(summary.kept.map((f: { key: string }) => f.key), ["img/logo.png"]);
          assert.deepEqual(await liveKeys(world, bucket), LIVE_KEYS, "still served");
          const s3 = world.client(S3Client, "S3");
          try {
            const obj = await s3.send(
              new GetObjectCommand({ Bucket: bucket, Key: "state/production.kept.json" }),
            );
            const record = JSON.parse(await obj.Body!.transformToString());
            assert.deepEqual(record.files.map((f: { key: string }) => f.key), ["img/logo.png"]);
          } finally {
            s3.destroy();
          }
          const status = JSON.parse((await world.run(["status", "--json"])).stdout);
          assert.deepEqual(status.kept, { files: 1, bytes: 3 });
        },
      ],

      [
        "rollback to the first build restores its kept output server-side (CopyObject), headers and tags included",
        async () => {
          const r = await world.run(["rollback", firstBuild, "--json"]);
          ok(r, "rollback");
          const summary = JSON.parse(r.stdout);
          assert.deepEqual([summary.method, summary.changedKeys], ["restore", ["blog/index.html"]]);
          assert.equal((await cloudfrontState(world)).invalidations.length, 3);
          const s3 = world.client(S3Client, "S3");
          try {
            const Key = "site/blog/index.html";
            const obj = await s3.send(new GetObjectCommand({ Bucket: bucket, Key }));
            assert.equal(await obj.Body!.transformToString(), "<h1>blog</h1>");
            assert.equal(obj.ContentType, "text/html; charset=utf-8");
            assert.equal(obj.CacheControl, "public, max-age=0, must-revalidate");
            const tags = await s3.send(new GetObjectTaggingCommand({ Bucket: bucket, Key }));
            assert.deepEqual(
              (tags.TagSet ?? []).map((t) => `${t.Key}=${t.Value}`).sort(),
              ["app=blog", "environment=production"],
            );
          } finally {
            s3.destroy();
          }
          await Deno.writeTextFile(join(world.root, "src/blog/index.html"), "<h1>blog</h1>");
        },
      ],

      [
        "a changed defaultRootObject: bootstrap republishes the function, updates the distribution",
        async () => {
          await world.configure({ ...SITE, defaultRootObject: "home.html" });
          const r = await world.run(["bootstrap"]);
          ok(r, "bootstrap after the change");
          const cf = world.client(CloudFrontClient, "CLOUDFRONT");
          try {
            const live = await cf.send(
              new GetFunctionCommand({ Name: "production-blog-rewrite", Stage: "LIVE" }),
            );
            assert.match(new TextDecoder().decode(live.FunctionCode), /home\.html/);
            const [dist] = (await cloudfrontState(world)).dists;
            const config = await cf.send(new GetDistributionConfigCommand({ Id: dist!.Id! }));
            assert.equal(config.DistributionConfig?.DefaultRootObject, "home.html");
          } finally {
            cf.destroy();
          }
          await world.configure(SITE);
        },
      ],
      ["delete --yes empties site/ and invalidates /*", async () => {
        const r = await world.run(["delete", "--yes", "--json"]);
        ok(r, "delete");
        assert.deepEqual(await liveKeys(world, bucket), []);
        const cf = await cloudfrontState(world);
        assert.equal(cf.invalidations.length, 4);
        const status = JSON.parse((await world.run(["status", "--json"])).stdout);
        assert.deepEqual(status.kept, { files: 0, bytes: 0 }, "the kept list went with the site");
      }],

      ["destroy --yes removes every resource", async () => {
        ok(await world.run(["destroy", "--yes"]), "destroy");
        assert.equal(await bucketExists(world, bucket), false);
        const cf = await cloudfrontState(world);
        assert.deepEqual([cf.dists.length, cf.fns.length, cf.oacs.length], [0, 0, 0]);
        assert.deepEqual(await logGroups(world), []);
      }],
    ]);
  });
}
