/**
 * End to end: the default `deploy` (the MicroVM builder) after a plain `bootstrap`, using only
 * what bootstrap recorded. In-process against s3rver (behind the bucket-configuration proxy)
 * and the loopback MicroVMs, Logs and CloudFront fakes. The MicroVMs fake's `onRun` hook plays
 * the VM by running the REAL agent job (`runAgentJob`: unzip, `deno task build`, SEO files,
 * the sync engine) against the same s3rver, its log lines going to the Logs fake's stream.
 *
 * The keep-alive is the real one (`createKeepAlive`) with a recording fetch: the VM endpoint the
 * fake reports (`https://<id>.microvm.lambda.<region>.on.aws`) is never contacted, and each
 * test runs with network permission for loopback only, so no request can leave it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createHash } from "node:crypto";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { fromWire } from "../../deploy/job/job_input.ts";
import { ACCOUNT, type InfraWorld, liveKeys, siteS3 } from "./infra_world.ts";
import { LOOPBACK_ONLY, MICROVM_SITE_CONFIG, microvmWorld } from "./microvm_world.ts";
import { git, SITE_KEYS } from "./site_repo.ts";

const BUCKET = `production-blog-${ACCOUNT}`;
const CONFIG = MICROVM_SITE_CONFIG;
const IDLE = MICROVM_SITE_CONFIG.microvm.idle;
const ALL_KEYS = [...SITE_KEYS, "robots.txt", "sitemap.xml"].sort();
const LOG_GROUP = "/aws/microvms/production-blog-builder";

async function bucketJson(world: InfraWorld, key: string): Promise<Record<string, unknown>> {
  const s3 = siteS3(world);
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return JSON.parse(await out.Body!.transformToString());
  } finally {
    s3.destroy();
  }
}

/** Runs `fn` with a client on the world's S3, closed afterwards. */
async function withS3<T>(world: InfraWorld, fn: (s3: S3Client) => Promise<T>): Promise<T> {
  const s3 = siteS3(world);
  try {
    return await fn(s3);
  } finally {
    s3.destroy();
  }
}

function callsOf(world: InfraWorld, operation: string) {
  return world.aws.microvms.callsOf(operation);
}

Deno.test({
  name:
    "deploy (MicroVM default) after bootstrap: launches from config, the agent syncs, the CLI streams, invalidates and records; history and logs show the build",
  permissions: LOOPBACK_ONLY,
  async fn() {
    await using mw = await microvmWorld({ config: CONFIG });
    const { world } = mw;
    const r = await mw.run(["deploy"]);
    assert.equal(r.code, 0, r.stderr + r.stdout);

    // Memory on the image, idle and maximum duration on the launch, all from the config.
    const image = callsOf(world, "CreateMicrovmImage");
    assert.equal(image.length, 1);
    assert.deepEqual(image[0]!.input.resources, [{ minimumMemoryInMiB: 2048 }]);
    const runs = callsOf(world, "RunMicrovm");
    assert.equal(runs.length, 1);
    const launch = runs[0]!.input;
    assert.deepEqual(launch.idlePolicy, IDLE);
    assert.equal(launch.maximumDurationInSeconds, 900);
    assert.match(String(launch.clientToken), /^[0-9a-f-]{36}$/);
    assert.equal(launch.executionRoleArn, `arn:aws:iam::${ACCOUNT}:role/production-blog-builder`);
    const job = fromWire(String(launch.runHookPayload));
    const id = job.buildId;
    assert.match(id, /^[0-9a-f]{12}$/, "the build id is the revision");
    assert.equal(job.maxDurationSeconds, 900);
    assert.deepEqual(job.paths, { app: ".", dist: "dist" });

    // The agent really built and synced the site.
    assert.deepEqual(await liveKeys(world, BUCKET), ALL_KEYS);

    // The CLI streamed the build's log lines, then printed the summary.
    assert.match(r.stdout, new RegExp(`^build:start:${id}$`, "m"));
    assert.match(r.stdout, /^site built$/m, "the site's own build output is streamed");
    assert.match(r.stdout, /^sync: 6 uploaded, 0 deleted, 0 unchanged$/m);
    assert.match(r.stdout, new RegExp(`^build:done:${id}$`, "m"));
    assert.match(r.stdout, new RegExp(`^Deployed production at revision ${id}$`, "m"));
    assert.match(r.stdout, /uploaded +6 files/);
    assert.match(r.stdout, /invalidation +IFAKE\w*: \d+ path\(s\)/);

    // One invalidation of exactly the changed paths.
    const invalidations = world.aws.cloudfront.state.invalidations;
    assert.equal(invalidations.length, 1);
    assert.ok(invalidations[0]!.paths.includes("/"), invalidations[0]!.paths.join(","));
    assert.ok(invalidations[0]!.paths.includes("/blog/index.html"));

    // Always terminated; the keep-alive went through an auth token, only to the recorder.
    assert.equal(callsOf(world, "TerminateMicrovm").length, 1);
    const vm = [...world.aws.microvms.state.microvms.values()][0]!;
    assert.equal(vm.state, "TERMINATED");
    assert.ok(mw.pings.length >= 1, "the keep-alive pinged while the build ran");
    for (const p of mw.pings) {
      assert.match(p, new RegExp(`^${vm.endpoint}/healthz fake-token\\.${vm.id}\\.`));
    }
    assert.ok(callsOf(world, "CreateMicrovmAuthToken").length >= 1);
    assert.doesNotMatch(r.stderr, /keep-alive|warning/i, r.stderr);

    // The record the agent wrote, then `history` and `logs`.
    const record = await bucketJson(world, `builds/${id}.json`);
    assert.equal(record.status, "done");
    assert.equal(record.uploaded, 6);
    // The agent kept the output for rollback: every live file, hashed, with its headers.
    const kept = await bucketJson(world, `outputs/manifests/${id}.json`);
    assert.deepEqual((kept.files as { key: string }[]).map((f) => f.key), ALL_KEYS);
    assert.equal(record.logGroup, LOG_GROUP);
    assert.equal(
      record.logStream,
      (launch.logging as { cloudWatch: { logStream: string } })
        .cloudWatch.logStream,
    );

    const history = await mw.run(["history", "--json"]);
    assert.equal(history.code, 0, history.stderr);
    const builds = JSON.parse(history.stdout);
    assert.deepEqual(builds.map((b: { id: string; status: string }) => [b.id, b.status]), [
      [id, "done"],
    ]);

    const logs = await mw.run(["logs", id]);
    assert.equal(logs.code, 0, logs.stderr);
    const lines = logs.stdout.trimEnd().split("\n");
    assert.match(lines[0]!, new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z build:start:${id}$`));
    assert.match(lines.at(-1)!, new RegExp(`Z build:done:${id}$`));
    assert.ok(lines.some((l) => / site built$/.test(l)), logs.stdout);
  },
});

Deno.test({
  name: "deploy (MicroVM default): an identical redeploy syncs nothing and invalidates nothing",
  permissions: LOOPBACK_ONLY,
  async fn() {
    await using mw = await microvmWorld({ config: CONFIG });
    const { world } = mw;
    const first = await mw.run(["deploy"]);
    assert.equal(first.code, 0, first.stderr + first.stdout);
    assert.equal(world.aws.cloudfront.state.invalidations.length, 1);

    const again = await mw.run(["deploy", "--json"]);
    assert.equal(again.code, 0, again.stderr + again.stdout);
    const summary = JSON.parse(again.stdout);
    assert.equal(summary.builder, "microvm");
    assert.equal(summary.uploaded, 0);
    assert.equal(summary.deleted, 0);
    assert.equal(summary.unchanged, 6);
    assert.deepEqual(summary.changedKeys, []);
    assert.equal(summary.invalidation, null);
    assert.equal(world.aws.cloudfront.state.invalidations.length, 1, "no invalidation request");
    assert.match(again.stderr, /^sync: 0 uploaded, 0 deleted, 6 unchanged$/m);
    // Each launch is its own VM with its own token and log stream, and each is terminated.
    const runs = callsOf(world, "RunMicrovm");
    assert.equal(runs.length, 2);
    assert.notEqual(runs[0]!.input.clientToken, runs[1]!.input.clientToken);
    assert.equal(callsOf(world, "TerminateMicrovm").length, 2);
    assert.equal(callsOf(world, "CreateMicrovmImage").length, 1, "the image is reused");
    assert.equal(callsOf(world, "UpdateMicrovmImage").length, 0);
    assert.deepEqual(await liveKeys(world, BUCKET), ALL_KEYS);
  },
});

Deno.test({
  name:
    "deploy (MicroVM default): a file the build dropped stays live for open tabs, listed in the environment's state, which the local builder then reads",
  permissions: LOOPBACK_ONLY,
  async fn() {
    await using mw = await microvmWorld({ config: CONFIG });
    const { world } = mw;
    assert.equal((await mw.run(["deploy"])).code, 0);
    await Deno.remove(join(world.root, "src/img/logo.png"));
    await git(world.root, "commit", "-q", "-am", "no logo");

    const second = await mw.run(["deploy", "--json"]);
    assert.equal(second.code, 0, second.stderr + second.stdout);
    const job = fromWire(String(callsOf(world, "RunMicrovm")[1]!.input.runHookPayload));
    assert.equal(job.retention?.previousDays, 7);
    assert.deepEqual(job.retention?.kept, [], "nothing was kept before");
    const summary = JSON.parse(second.stdout);
    assert.equal(summary.deleted, 0);
    assert.deepEqual(summary.expired, []);
    assert.deepEqual(summary.kept.map((f: { key: string }) => f.key), ["img/logo.png"]);
    assert.equal(summary.kept[0].since, job.retention?.now, "graces count from the CLI's time");
    assert.match(second.stderr, /^sync: 1 file\(s\) of earlier builds kept for open tabs$/m);
    assert.ok((await liveKeys(world, BUCKET)).includes("img/logo.png"));
    const record = await bucketJson(world, "state/production.kept.json");
    assert.deepEqual(record.files, summary.kept.map(({ until: _, ...f }: { until: string }) => f));

    // The next MicroVM build reads the list from a copy beside its source (the builder role may
    // not read state/), and keeps the grace's start.
    const third = await mw.run(["deploy", "--json"]);
    assert.equal(third.code, 0, third.stderr + third.stdout);
    const staged = fromWire(String(callsOf(world, "RunMicrovm")[2]!.input.runHookPayload));
    assert.deepEqual(staged.retention?.kept, { stagedKey: `build/${staged.buildId}.kept.json` });
    assert.deepEqual(JSON.parse(third.stdout).kept, summary.kept);

    // Another builder (another machine) carries the same list on.
    const fourth = await mw.run(["deploy", "--builder", "local", "--json"]);
    assert.equal(fourth.code, 0, fourth.stderr + fourth.stdout);
    assert.deepEqual(JSON.parse(fourth.stdout).kept, summary.kept);
  },
});

Deno.test({
  name:
    "deploy (MicroVM default): a failing build exits 1 with build_failed and the last log lines, terminates, invalidates nothing",
  permissions: LOOPBACK_ONLY,
  async fn() {
    await using mw = await microvmWorld({ config: CONFIG });
    const { world } = mw;
    await Deno.writeTextFile(
      join(world.root, "build.js"),
      'console.log("compiling");\nconsole.error("error: cannot resolve ./missing.css");\nDeno.exit(3);\n',
    );
    const r = await mw.run(["deploy", "--json"]);
    assert.equal(r.code, 1, r.stdout);
    const error = JSON.parse(r.stdout).error;
    assert.equal(error.code, "build_failed");
    assert.match(error.message, /deno task build failed/);
    assert.match(error.hint, /last log lines:/);
    assert.match(error.hint, /compiling/);
    assert.match(error.hint, /cannot resolve \.\/missing\.css/);
    assert.match(r.stderr, /^compiling$/m, "the lines were streamed as they came");

    assert.equal(callsOf(world, "RunMicrovm").length, 1);
    assert.equal(callsOf(world, "TerminateMicrovm").length, 1);
    assert.equal([...world.aws.microvms.state.microvms.values()][0]!.state, "TERMINATED");
    assert.equal(world.aws.cloudfront.state.invalidations.length, 0);
    assert.deepEqual(await liveKeys(world, BUCKET), []);

    const history = JSON.parse((await mw.run(["history", "--json"])).stdout);
    assert.equal(history.length, 1);
    assert.equal(history[0].status, "failed");
    assert.match(history[0].reason, /exit code 3/);
  },
});

Deno.test({
  name: "deploy (MicroVM default): a refused image creation names the action and the image",
  permissions: LOOPBACK_ONLY,
  async fn() {
    await using mw = await microvmWorld({ config: CONFIG });
    const { world } = mw;
    world.aws.microvms.fail("CreateMicrovmImage", {
      code: "AccessDeniedException",
      status: 403,
      message: "not authorized to perform lambda:CreateMicrovmImage",
    });
    const r = await mw.run(["deploy", "--json"]);
    assert.equal(r.code, 1, r.stdout);
    const error = JSON.parse(r.stdout).error;
    assert.equal(error.code, "aws_access_denied");
    assert.match(error.message, /^access denied: lambda:CreateMicrovmImage on builder image /);
    assert.match(error.hint, /grant lambda:CreateMicrovmImage/);
    assert.equal(callsOf(world, "RunMicrovm").length, 0);
  },
});

Deno.test({
  name:
    "deploy --builder local is recorded: history lists it, logs says where its lines went; rollback restores it server-side, and rebuilds it past the retention or when kept objects are gone",
  permissions: LOOPBACK_ONLY,
  async fn() {
    await using mw = await microvmWorld({ config: CONFIG });
    const { world } = mw;
    const first = await mw.run(["deploy", "--builder", "local", "--json"]);
    assert.equal(first.code, 0, first.stderr + first.stdout);
    const v1 = JSON.parse(first.stdout).revision as string;
    const record = await bucketJson(world, `builds/${v1}.json`);
    assert.equal(record.status, "done");
    assert.equal(record.source, `build/${v1}.zip`);
    assert.equal(record.uploaded, ALL_KEYS.length);

    await Deno.writeTextFile(join(world.root, "src/index.html"), "<h1>home v2</h1>");
    await git(world.root, "commit", "-q", "-am", "v2");
    const second = await mw.run(["deploy", "--builder", "local", "--json"]);
    assert.equal(second.code, 0, second.stderr + second.stdout);
    const v2 = JSON.parse(second.stdout).revision as string;
    assert.notEqual(v2, v1);
    assert.equal(await liveText(world, "site/index.html"), "<h1>home v2</h1>");

    const history = JSON.parse((await mw.run(["history", "--json"])).stdout);
    assert.deepEqual(
      history.map((b: { id: string; status: string; live: boolean }) => [b.id, b.status, b.live]),
      [[v2, "done", true], [v1, "done", false]],
    );
    const logs = await mw.run(["logs", v1]);
    assert.equal(logs.code, 0, logs.stderr);
    assert.match(logs.stderr, /ran with --builder local/);

    // Within the retention the rollback restores v1's kept output server-side: no build.
    const rollback = await mw.run(["rollback", v1, "--json"]);
    assert.equal(rollback.code, 0, rollback.stderr + rollback.stdout);
    const restored = JSON.parse(rollback.stdout);
    assert.equal(restored.method, "restore");
    assert.equal(restored.builder, "none");
    assert.deepEqual(restored.changedKeys, ["index.html"]);
    assert.deepEqual(restored.invalidation.paths, ["/", "/index.html"]);
    assert.equal(await liveText(world, "site/index.html"), "<h1>home</h1>");
    assert.equal(callsOf(world, "RunMicrovm").length, 0);
    // history marks the build the site now serves, not the newest.
    const afterRollback = JSON.parse((await mw.run(["history", "--json"])).stdout);
    assert.deepEqual(
      afterRollback.map((b: { id: string; live: boolean }) => [b.id, b.live]),
      [[v2, false], [v1, true]],
    );

    // Past retention.buildsDays (v2's manifest aged 31 days) it says so and rebuilds the stored
    // source in a MicroVM, which publishes it.
    const manifest = await bucketJson(world, `outputs/manifests/${v2}.json`);
    const aged = { ...manifest, createdAt: new Date(Date.now() - 31 * 86_400_000).toISOString() };
    await withS3(world, (s3) =>
      s3.send(
        new PutObjectCommand({
          Bucket: BUCKET,
          Key: `outputs/manifests/${v2}.json`,
          Body: JSON.stringify(aged),
        }),
      ));
    const rebuilt = await mw.run(["rollback", v2, "--json"]);
    assert.equal(rebuilt.code, 0, rebuilt.stderr + rebuilt.stdout);
    assert.match(
      rebuilt.stderr,
      new RegExp(
        `build ${v2} was deployed 31 days ago, past retention.buildsDays \\(30\\): rebuilding it`,
      ),
    );
    const summary = JSON.parse(rebuilt.stdout);
    assert.equal(summary.method, "rebuild");
    assert.equal(summary.builder, "microvm");
    assert.match(summary.reason, /past retention.buildsDays/);
    assert.deepEqual(summary.changedKeys, ["index.html"]);
    assert.equal(callsOf(world, "RunMicrovm").length, 1);
    assert.equal(await liveText(world, "site/index.html"), "<h1>home v2</h1>");

    // Within the retention but a kept object it needs is gone: found before anything changes,
    // said, and rebuilt.
    const homeMd5 = createHash("md5").update("<h1>home</h1>").digest("hex");
    await withS3(
      world,
      (s3) =>
        s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: `outputs/objects/${homeMd5}` })),
    );
    const fellBack = await mw.run(["rollback", v1, "--json"]);
    assert.equal(fellBack.code, 0, fellBack.stderr + fellBack.stdout);
    assert.match(
      fellBack.stderr,
      new RegExp(`1 kept object\\(s\\) of build ${v1} are gone: rebuilding it`),
    );
    assert.equal(JSON.parse(fellBack.stdout).method, "rebuild");
    assert.equal(callsOf(world, "RunMicrovm").length, 2);
    assert.equal(await liveText(world, "site/index.html"), "<h1>home</h1>");
  },
});

async function liveText(world: InfraWorld, key: string): Promise<string> {
  const s3 = siteS3(world);
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    return await out.Body!.transformToString();
  } finally {
    s3.destroy();
  }
}

Deno.test({
  name:
    "deploy (MicroVM default): the agent puts the config's and _redirects' rules live before its sync; the summary shows them",
  permissions: LOOPBACK_ONLY,
  async fn() {
    await using mw = await microvmWorld({
      config: { ...CONFIG, redirects: [{ from: "/old", to: "/new", status: 301 }] },
    });
    const { world } = mw;
    await Deno.writeTextFile(join(world.root, "src", "_redirects"), "/blog/* /posts/:splat\n");
    await git(world.root, "add", "-A");
    await git(world.root, "commit", "-q", "-m", "rules");
    const r = await mw.run(["deploy", "--json"]);
    assert.equal(r.code, 0, r.stderr + r.stdout);
    const rules = JSON.parse(r.stdout).rules;
    assert.equal(rules.redirects, 2);
    assert.equal(rules.changed, true);
    const [launch] = callsOf(world, "RunMicrovm");
    const { routing } = fromWire(String(launch!.input.runHookPayload));
    assert.ok(routing && "stagedKey" in routing, "the job names its rules target");
    const target = await bucketJson(world, routing.stagedKey);
    assert.equal((target.configRules as { redirects: unknown[] }).redirects.length, 1);
    const live = world.aws.cloudfront.state.functions.get("production-blog-rewrite")!.live!;
    assert.match(live.code, /posts/);
    assert.match(live.code, /\/new/);
  },
});
