/**
 * `history`, `logs` and `rollback` in-process through the CLI runner, against s3rver, the Logs
 * and MicroVMs fakes and a CloudFront fake, on recorded builds.
 */
import assert from "node:assert/strict";
import { S3Client } from "@aws-sdk/client-s3";
import { FixedClock } from "@org/shared";
import { captureCli } from "../../../deploy/cli/test_deps.ts";
import { runCli } from "../../../deploy/cli/run.ts";
import { fromWire } from "../../../deploy/job/job_input.ts";
import type { BuildRecord } from "../../../deploy/build_records/record.ts";
import { putBuildRecord } from "../../../deploy/build_records/store.ts";
import { getText, putJson } from "../../../deploy/aws/s3_objects.ts";
import { createRollbackCommand } from "../../../deploy/commands/rollback.ts";
import { COMMAND_TABLE } from "../../../deploy/commands/table.ts";
import { startLogsFake } from "../../fakes/logs.ts";
import { startMicrovmsFake } from "../../fakes/microvms.ts";
import { startCloudFrontFake } from "../../fakes/cloudfront.ts";
import { startS3, testAwsConfig } from "../../support/s3.ts";
import { builderSeams, reportingRun } from "../../support/microvm_builder.ts";

const BUCKET = "production-blog-123456789012";
const GROUP = "/aws/microvms/production-blog-builder";

function record(id: string, startedAt: string, extra: Partial<BuildRecord> = {}): BuildRecord {
  const durationMs = 95_000;
  return {
    version: 1,
    id,
    status: "done",
    startedAt,
    finishedAt: new Date(Date.parse(startedAt) + durationMs).toISOString(),
    durationMs,
    source: `build/${id}.zip`,
    logGroup: GROUP,
    logStream: `build-${id}-aaaaaaaa`,
    ...extra,
  };
}

async function setup() {
  const root = await Deno.makeTempDir({ prefix: "deploy-builds-" });
  await Deno.mkdir(`${root}/.git`);
  await Deno.mkdir(`${root}/config`);
  await Deno.writeTextFile(
    `${root}/config/production.jsonc`,
    `{ "siteName": "blog", "region": "us-east-1", "domain": "blog.example.com" }`,
  );
  const s3srv = await startS3([BUCKET]);
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  const logs = startLogsFake();
  const store = { s3, bucket: BUCKET };
  await putBuildRecord(store, record("aaa111", "2026-05-01T10:00:00.000Z"));
  await putBuildRecord(
    store,
    record("ccc333", "2026-05-03T10:00:00.000Z", { status: "failed", reason: "npm failed" }),
  );
  await putBuildRecord(store, record("bbb222", "2026-05-02T10:00:00.000Z"));
  await putJson(store, "builds/broken.json", "{not a record");
  logs.state.append(GROUP, "build-aaa111-aaaaaaaa", [
    { timestamp: Date.parse("2026-05-01T10:00:01.000Z"), message: "installing" },
    { timestamp: Date.parse("2026-05-01T10:01:30.000Z"), message: "build:done:aaa111" },
  ]);
  const environ = {
    AWS_ACCOUNT_ID: "123456789012",
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    AWS_ENDPOINT_URL_S3: s3srv.endpoint,
    AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: logs.endpoint,
  };
  return {
    root,
    s3,
    store,
    logs,
    environ,
    async [Symbol.asyncDispose]() {
      await logs.close();
      await s3srv.close();
      await Deno.remove(root, { recursive: true });
    },
  };
}

Deno.test("history: newest first on a terminal, corrupt record skipped with a warning", async () => {
  await using t = await setup();
  const cli = captureCli({
    cwd: t.root,
    environ: { ...t.environ, NO_COLOR: "1" },
    stdoutIsTty: true,
  });
  assert.equal(await runCli(["history"], cli.deps), 0, cli.stderr());
  const lines = cli.stdout().trimEnd().split("\n");
  assert.match(lines[0]!, /^ID\s+STATUS\s+FINISHED\s+DURATION$/);
  assert.deepEqual(lines.slice(1).map((l) => l.split(/\s+/)[0]), ["ccc333", "bbb222", "aaa111"]);
  assert.match(lines[1]!, /ccc333\s+failed\s+2026-05-03 10:01:35Z\s+1m 35s/);
  assert.match(cli.stderr(), /warning: skipped builds\/broken\.json: not an object/);
});

Deno.test("history: piped output is tab-separated with stable columns; --json prints records", async () => {
  await using t = await setup();
  const piped = captureCli({ cwd: t.root, environ: t.environ });
  assert.equal(await runCli(["history", "production"], piped.deps), 0);
  assert.equal(
    piped.stdout().split("\n")[0],
    "ccc333\tfailed\t2026-05-03T10:01:35.000Z\t95000",
  );
  const json = captureCli({ cwd: t.root, environ: t.environ });
  assert.equal(await runCli(["history", "--json"], json.deps), 0);
  const builds = JSON.parse(json.stdout());
  assert.deepEqual(builds.map((b: { id: string }) => b.id), ["ccc333", "bbb222", "aaa111"]);
  assert.equal(builds[0].reason, "npm failed");
});

Deno.test("logs: prints each line with its timestamp; an unknown build is build_not_found", async () => {
  await using t = await setup();
  const cli = captureCli({ cwd: t.root, environ: t.environ });
  assert.equal(await runCli(["logs", "aaa111"], cli.deps), 0, cli.stderr());
  assert.equal(
    cli.stdout(),
    "2026-05-01T10:00:01.000Z installing\n2026-05-01T10:01:30.000Z build:done:aaa111\n",
  );
  const missing = captureCli({ cwd: t.root, environ: t.environ });
  assert.equal(await runCli(["logs", "nope", "--json"], missing.deps), 1);
  assert.match(missing.stdout() + missing.stderr(), /build_not_found/);
});

Deno.test("rollback: rebuilds the stored source in a MicroVM and invalidates what changed", async () => {
  await using t = await setup();
  await using cf = startCloudFrontFake();
  cf.state.seedDistribution("EDIST");
  cf.state.seedDistribution("EDIST");
  const clock = new FixedClock(Date.parse("2026-05-04T10:00:00.000Z"));
  await using vms = startMicrovmsFake({
    imageReadyAfterReads: 0,
    runningAfterReads: 0,
    onRun: reportingRun(
      (group, stream, lines) => t.logs.state.append(group, stream, lines),
      t.s3,
      ["index.html", "blog/index.html"],
    ),
  });
  await putJson(t.store, "state/production.json", {
    version: 1,
    env: "production",
    bucket: BUCKET,
    nodes: {},
    distributionId: "EDIST",
    builder: {
      baseImageArn: "arn:aws:lambda:us-east-1:aws:microvm-image:deno",
      buildRoleArn: "arn:aws:iam::123456789012:role/builder",
    },
  });
  const environ = {
    ...t.environ,
    AWS_ENDPOINT_URL_LAMBDA_MICROVMS: vms.endpoint,
    AWS_ENDPOINT_URL_CLOUDFRONT: cf.endpoint,
  };
  const pings: string[] = [];
  const rollback = createRollbackCommand(
    builderSeams(clock, {
      keepAlive: (target) => Promise.resolve(void pings.push(target.microvmId)),
    }),
  );
  const commands = {
    ...COMMAND_TABLE,
    commands: COMMAND_TABLE.commands.map((c) => c.name === "rollback" ? rollback : c),
  };

  // The source is gone: a clear error, no VM launched.
  const gone = captureCli({ cwd: t.root, environ, commands });
  assert.equal(await runCli(["rollback", "aaa111"], gone.deps), 1);
  assert.match(gone.stderr(), /build aaa111 \(build\/aaa111\.zip\) is no longer stored/);
  assert.equal(vms.callsOf("RunMicrovm").length, 0);

  await t.s3.send(
    new (await import("@aws-sdk/client-s3")).PutObjectCommand({
      Bucket: BUCKET,
      Key: "build/aaa111.zip",
      Body: new Uint8Array([80, 75, 5, 6]),
    }),
  );
  const cli = captureCli({ cwd: t.root, environ, commands });
  assert.equal(await runCli(["rollback", "aaa111", "--json"], cli.deps), 0, cli.stderr());
  const out = JSON.parse(cli.stdout());
  assert.equal(out.id, "aaa111");
  assert.deepEqual(
    out.invalidation.paths,
    ["/", "/blog", "/blog/", "/blog/index.html", "/index.html"],
  );
  assert.equal(cf.state.invalidations[0]!.distributionId, "EDIST");
  const job = fromWire(String(vms.callsOf("RunMicrovm")[0]!.input.runHookPayload));
  assert.deepEqual(job.source, { bucketKey: "build/aaa111.zip" });
  assert.equal(job.origin, "https://blog.example.com");
  assert.equal(vms.callsOf("TerminateMicrovm").length, 1);

  // A rollback publishes like a deploy: it makes good what an earlier run owed...
  await putJson(t.store, "state/production.invalidation.json", {
    version: 1,
    keys: ["old.html"],
    all: false,
  });
  const again = captureCli({ cwd: t.root, environ, commands, sleep: () => Promise.resolve() });
  assert.equal(await runCli(["rollback", "aaa111", "--json"], again.deps), 0, again.stderr());
  assert.ok(JSON.parse(again.stdout()).invalidation.paths.includes("/old.html"));
  assert.equal(await getText(t.store, "state/production.invalidation.json"), undefined);
  // ...and waits for, then refuses, a deploy that holds the environment's lock.
  await putJson(t.store, "locks/production.json", {
    version: 1,
    holder: "deploy production (pid 9)",
    token: "t",
    acquiredAt: new Date().toISOString(),
    expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
  });
  const locked = captureCli({ cwd: t.root, environ, commands, sleep: () => Promise.resolve() });
  assert.equal(await runCli(["rollback", "aaa111", "--json"], locked.deps), 1);
  assert.equal(JSON.parse(locked.stdout()).error.code, "deploy_locked");
  assert.match(locked.stderr(), /deploy production \(pid 9\)/);
  assert.equal(vms.callsOf("RunMicrovm").length, 2, "no VM launched while locked");
});
