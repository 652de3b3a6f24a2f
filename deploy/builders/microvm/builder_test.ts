import assert from "node:assert/strict";
import { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import { LambdaMicrovmsClient } from "@aws-sdk/client-lambda-microvms";
import { S3Client } from "@aws-sdk/client-s3";
import { FixedClock } from "@org/shared";
import { startLogsFake } from "../../../tests/fakes/logs.ts";
import { type MicrovmRunContext, startMicrovmsFake } from "../../../tests/fakes/microvms.ts";
import { startS3, testAwsConfig } from "../../../tests/support/s3.ts";
import { builderSeams, fakeBundle } from "../../../tests/support/microvm_builder.ts";
import type { JobHooks } from "../builder.ts";
import { fromWire, type JobInput } from "../../job/job_input.ts";
import { getBuildRecord, putManifest, sourceExists } from "../../build_records/store.ts";
import { DeployError } from "../../errors.ts";
import {
  createMicrovmBuilder,
  type MicrovmBuilderOptions,
  microvmDeps,
  stageJob,
} from "./builder.ts";
import { getRoutingTarget } from "../../build_records/store.ts";
import { readKeptFiles } from "../../state/kept_files.ts";

const BUCKET = "production-blog-123456789012";
const IDLE = {
  autoResumeEnabled: false,
  maxIdleDurationSeconds: 300,
  suspendedDurationSeconds: 120,
};

interface Env {
  clock: FixedClock;
  s3: S3Client;
  logs: ReturnType<typeof startLogsFake>;
  vms: ReturnType<typeof startMicrovmsFake>;
  options(extra?: Partial<MicrovmBuilderOptions>): MicrovmBuilderOptions;
  pings: string[];
  warnings: string[];
  [Symbol.asyncDispose](): Promise<void>;
}

/** Fakes on loopback; `guest` plays the agent inside the VM. */
async function setup(
  guest: (ctx: MicrovmRunContext, job: JobInput, env: Env) => Promise<void> | void,
  fakeClock = true,
): Promise<Env> {
  const clock = new FixedClock(Date.parse("2026-05-01T10:00:00.000Z"));
  const s3srv = await startS3([BUCKET]);
  const logs = startLogsFake({ now: () => clock.now() });
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3srv.endpoint, forcePathStyle: true });
  const pings: string[] = [];
  const warnings: string[] = [];
  let tokens = 0;
  // deno-lint-ignore prefer-const
  let env: Env;
  const vms = startMicrovmsFake({
    imageReadyAfterReads: 1,
    runningAfterReads: 0,
    ...(fakeClock ? { now: () => clock.now() } : {}),
    onRun: async (ctx) => {
      await guest(ctx, fromWire(ctx.payload ?? ""), env);
    },
  });
  const microvms = new LambdaMicrovmsClient({
    ...testAwsConfig,
    endpoint: vms.endpoint,
    maxAttempts: 1,
  });
  const logsClient = new CloudWatchLogsClient({
    ...testAwsConfig,
    endpoint: logs.endpoint,
    maxAttempts: 1,
  });
  env = {
    clock,
    s3,
    logs,
    vms,
    pings,
    warnings,
    options: (extra = {}) => ({
      clients: { microvms, logs: logsClient, s3 },
      env: "production",
      siteName: "blog",
      region: "us-east-1",
      microvm: { memory: 2, maxDurationSeconds: 600, idle: IDLE },
      image: {
        baseImageArn: "arn:aws:lambda:us-east-1:aws:microvm-image:deno",
        buildRoleArn: "arn:aws:iam::123456789012:role/builder",
        executionRoleArn: "arn:aws:iam::123456789012:role/builder-run",
      },
      ...builderSeams(clock, {
        newToken: () => `0123456789abcdef0123456789abcd${String(++tokens).padStart(2, "0")}`,
        keepAlive: (t) => {
          pings.push(t.microvmId);
          return Promise.resolve();
        },
        bundle: fakeBundle("a"),
      }),
      onWarning: (w) => warnings.push(w),
      ...extra,
    }),
    async [Symbol.asyncDispose]() {
      await vms.close();
      await logs.close();
      await s3srv.close();
    },
  };
  return env;
}

async function zipFile(): Promise<string> {
  const path = await Deno.makeTempFile({ suffix: ".zip" });
  await Deno.writeFile(
    path,
    new Uint8Array([80, 75, 5, 6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]),
  );
  return path;
}

/** The agent's happy path: manifest in S3, then the done marker in the log stream. */
/** A job for the zipped fixture: `dist` from the repo root, 600 s unless `extra` says. */
function buildJob(zip: string, buildId: string, extra: Partial<JobInput> = {}): JobInput {
  return {
    buildId,
    source: { zip },
    paths: { app: ".", dist: "dist" },
    maxDurationSeconds: 600,
    target: { bucket: BUCKET, prefix: "site/" },
    tags: { app: "blog", environment: "production" },
    seo: { robots: "auto", sitemap: "auto" },
    production: true,
    origin: "https://blog.example.com",
    ...extra,
  };
}

async function succeed(ctx: MicrovmRunContext, job: JobInput, env: Env) {
  await putManifest({ s3: env.s3, bucket: job.target.bucket }, {
    version: 1,
    id: job.buildId,
    changedKeys: ["index.html", "app.css"],
    uploaded: 2,
    deleted: 0,
    unchanged: 3,
    bytesUploaded: 42,
  });
  env.logs.state.append(ctx.logging!.logGroup!, ctx.logging!.logStream!, [
    "installing",
    "building",
    `build:done:${job.buildId}`,
  ]);
}

Deno.test("microvm builder: launches with memory on the image, idle unchanged, max duration and a client token", async () => {
  await using env = await setup(succeed);
  const zip = await zipFile();
  const lines: string[] = [];
  const hooks: JobHooks = { onOutput: (l) => lines.push(l) };
  const out = await createMicrovmBuilder(env.options()).run(buildJob(zip, "abc123"), hooks);
  await Deno.remove(zip);

  assert.deepEqual(out, {
    warnings: [],
    changedKeys: ["index.html", "app.css"],
    uploaded: 2,
    deleted: 0,
    unchanged: 3,
    bytesUploaded: 42,
  });
  assert.deepEqual(lines, ["installing", "building", "build:done:abc123"]);
  assert.ok(await sourceExists({ s3: env.s3, bucket: BUCKET }, "abc123"));

  const created = env.vms.callsOf("CreateMicrovmImage")[0]!.input;
  assert.equal(created.name, "production-blog-builder");
  assert.deepEqual(created.resources, [{ minimumMemoryInMiB: 2048 }]);
  assert.deepEqual(created.logging, {
    cloudWatch: { logGroup: "/aws/microvms/production-blog-builder" },
  });

  const run = env.vms.callsOf("RunMicrovm");
  assert.equal(run.length, 1);
  const input = run[0]!.input;
  assert.deepEqual(input.idlePolicy, IDLE);
  assert.equal(input.maximumDurationInSeconds, 600);
  assert.equal(input.clientToken, "0123456789abcdef0123456789abcd01");
  assert.equal(input.executionRoleArn, "arn:aws:iam::123456789012:role/builder-run");
  assert.deepEqual(input.logging, {
    cloudWatch: {
      logGroup: "/aws/microvms/production-blog-builder",
      logStream: "build-abc123-01234567",
    },
  });
  const job = fromWire(String(input.runHookPayload));
  assert.deepEqual(job.source, { bucketKey: "build/abc123.zip" });
  assert.equal(job.target.prefix, "site/");
  assert.equal(job.refresh, undefined, "no --refresh, no refresh in the job");
  assert.equal(job.force, undefined);

  assert.equal(env.vms.callsOf("TerminateMicrovm").length, 1);
  assert.equal([...env.vms.state.microvms.values()][0]!.state, "TERMINATED");
});

Deno.test("microvm builder: the image is rebuilt only when the bundle or memory changes", async () => {
  await using env = await setup(succeed);
  const zip = await zipFile();
  await createMicrovmBuilder(env.options()).run(buildJob(zip, "b1"));
  await createMicrovmBuilder(env.options()).run(buildJob(zip, "b2"));
  assert.equal(env.vms.callsOf("CreateMicrovmImage").length, 1);
  assert.equal(env.vms.callsOf("UpdateMicrovmImage").length, 0);

  await createMicrovmBuilder(env.options({
    microvm: { memory: 4, maxDurationSeconds: 600, idle: IDLE },
  })).run(buildJob(zip, "b3"));
  const updates = env.vms.callsOf("UpdateMicrovmImage");
  assert.equal(updates.length, 1);
  assert.deepEqual(updates[0]!.input.resources, [{ minimumMemoryInMiB: 4096 }]);

  await createMicrovmBuilder(env.options({
    microvm: { memory: 4, maxDurationSeconds: 600, idle: IDLE },
    bundle: fakeBundle("b"),
  })).run(buildJob(zip, "b4"));
  assert.equal(env.vms.callsOf("UpdateMicrovmImage").length, 2);
  await Deno.remove(zip);
});

Deno.test("microvm builder: a failed build throws build_failed with the last log lines and terminates", async () => {
  await using env = await setup((ctx, job, e) => {
    e.logs.state.append(ctx.logging!.logGroup!, ctx.logging!.logStream!, [
      "npm ERR! missing script: build",
      `build:failed:${job.buildId}:build_failed: npm run build failed with exit code 1`,
    ]);
  });
  const zip = await zipFile();
  const err = await createMicrovmBuilder(env.options()).run(buildJob(zip, "bad")).then(
    () => undefined,
    (e) => e,
  );
  await Deno.remove(zip);
  assert.ok(err instanceof DeployError);
  assert.equal(err.code, "build_failed");
  assert.match(err.message, /npm run build failed with exit code 1/);
  assert.match(err.hint, /npm ERR! missing script: build/);
  assert.equal(env.vms.callsOf("TerminateMicrovm").length, 1);
});

Deno.test("microvm builder: no marker by maxDurationSeconds + 60 s after launch is build_timeout", async () => {
  // The VM never expires on its own (the fake runs on wall time), so only the deadline ends it.
  await using env = await setup((ctx) => {
    env.logs.state.append(ctx.logging!.logGroup!, ctx.logging!.logStream!, ["still building"]);
  }, false);
  const zip = await zipFile();
  let launchedAt = 0;
  const builder = createMicrovmBuilder(env.options({
    microvm: { memory: 2, maxDurationSeconds: 30, idle: IDLE },
    onStatus: (s) => {
      if (s.startsWith("launching")) launchedAt = env.clock.now();
    },
  }));
  const err = await builder.run(buildJob(zip, "slow", { maxDurationSeconds: 30 })).then(
    () => undefined,
    (e) => e,
  );
  await Deno.remove(zip);
  assert.ok(err instanceof DeployError);
  assert.equal(err.code, "build_timeout");
  assert.match(err.hint, /still building/);
  assert.equal(env.clock.now() - launchedAt, 90_000);
  assert.equal(env.vms.callsOf("TerminateMicrovm").length, 1);
  const record = await getBuildRecord({ s3: env.s3, bucket: BUCKET }, "slow");
  assert.equal(record?.status, "timeout");
  assert.ok(env.pings.length >= 1, "keep-alive pinged while waiting");
});

Deno.test("microvm builder: a VM stopped by the service without a marker fails the build", async () => {
  await using env = await setup((ctx) => {
    ctx.state.setState(ctx.vm.id, "TERMINATED", "GuestExited");
  });
  const zip = await zipFile();
  const err = await createMicrovmBuilder(env.options()).run(buildJob(zip, "crash")).then(
    () => undefined,
    (e) => e,
  );
  await Deno.remove(zip);
  assert.ok(err instanceof DeployError);
  assert.equal(err.code, "build_failed");
  assert.match(err.message, /GuestExited/);
});

Deno.test("microvm builder: RunMicrovm 503s are retried with the same client token", async () => {
  await using env = await setup(succeed);
  env.vms.fail("RunMicrovm", { code: "ServiceUnavailableException", status: 503, times: 2 });
  const zip = await zipFile();
  await createMicrovmBuilder(env.options()).run(buildJob(zip, "retry"));
  await Deno.remove(zip);
  const runs = env.vms.callsOf("RunMicrovm");
  assert.equal(runs.length, 3);
  assert.equal(new Set(runs.map((r) => r.input.clientToken)).size, 1);
  assert.equal(env.vms.state.microvms.size, 1);
});

Deno.test("microvm builder: a failed terminate is a warning, not a failed build", async () => {
  await using env = await setup(succeed);
  env.vms.fail("TerminateMicrovm", { code: "AccessDeniedException", status: 403 });
  const zip = await zipFile();
  const out = await createMicrovmBuilder(env.options()).run(buildJob(zip, "term"));
  await Deno.remove(zip);
  assert.deepEqual(out.changedKeys, ["index.html", "app.css"]);
  assert.equal(env.vms.callsOf("TerminateMicrovm").length, 1);
  assert.ok(env.warnings.some((w) => /could not be terminated/.test(w)), env.warnings.join("\n"));
});

Deno.test("microvm builder: rebuilding a stored source fails with build_source_missing when it is gone", async () => {
  await using env = await setup(succeed);
  const err = await createMicrovmBuilder(env.options()).run(
    buildJob("", "nope", { source: { bucketKey: "build/nope.zip" } }),
  ).then(() => undefined, (e) => e);
  assert.ok(err instanceof DeployError);
  assert.equal(err.code, "build_source_missing");
  assert.equal(env.vms.callsOf("RunMicrovm").length, 0);
});

Deno.test("microvm builder: --refresh and --force reach the agent job", async () => {
  await using env = await setup(succeed);
  const zip = await zipFile();
  await createMicrovmBuilder(env.options()).run(
    buildJob(zip, "abc123", { refresh: true, force: true }),
  );
  await Deno.remove(zip);
  const input = env.vms.callsOf("RunMicrovm")[0]!.input;
  const job = fromWire(String(input.runHookPayload));
  assert.equal(job.refresh, true);
  assert.equal(job.force, true);
});

Deno.test("microvm builder: Ctrl-C stops waiting for the build and terminates the VM", async () => {
  // The VM prints its output but never finishes.
  await using env = await setup((ctx, _job, e) => {
    e.logs.state.append(ctx.logging!.logGroup!, ctx.logging!.logStream!, ["building"]);
  });
  const zip = await zipFile();
  const interrupt = new AbortController();
  const err = await createMicrovmBuilder(env.options()).run(buildJob(zip, "hung"), {
    signal: interrupt.signal,
    onOutput: () => interrupt.abort(),
  }).then(() => undefined, (e) => e);
  await Deno.remove(zip);
  assert.ok(err instanceof DeployError, String(err));
  assert.equal(err.code, "interrupted");
  assert.equal(env.vms.callsOf("TerminateMicrovm").length, 1);
});

Deno.test("stageJob(): what the VM reads is in the bucket, the big parts by reference, the owed key stays", async () => {
  await using env = await setup(succeed);
  const zip = await zipFile();
  const kept = [{ key: "old.html", size: 3, since: "2026-04-30T10:00:00.000Z" }];
  const routing = {
    rewriteFunction: "production-blog-rewrite",
    bucket: BUCKET,
    headersFunction: "production-blog-headers",
    headersPolicy: "production-blog-headers",
    distributionId: "EDIST",
    indexDocument: "index.html",
    spa: false,
    configRules: { redirects: [], headers: [] },
    tags: {},
  };
  const { job } = await stageJob(
    buildJob(zip, "abc123", {
      owedKey: "state/production.invalidation.json",
      retention: { previousDays: 7, now: "2026-05-01T10:00:00.000Z", kept },
      routing,
    }),
    microvmDeps(env.options()),
  );
  await Deno.remove(zip);
  const store = { s3: env.s3, bucket: BUCKET };
  assert.deepEqual(job.source, { bucketKey: "build/abc123.zip" });
  assert.ok(await sourceExists(store, "abc123"));
  assert.deepEqual(job.target, { bucket: BUCKET, prefix: "site/", region: "us-east-1" });
  assert.equal(job.owedKey, undefined, "the CLI keeps the owed invalidation");
  assert.deepEqual(job.record, {
    startedAt: new Date(env.clock.now()).toISOString(), // once the image is ready
    source: "build/abc123.zip",
    logGroup: "/aws/microvms/production-blog-builder",
    logStream: "build-abc123-01234567",
  });
  const stagedKept = job.retention!.kept;
  assert.ok("stagedKey" in stagedKept);
  assert.deepEqual(await readKeptFiles({ ...store, key: stagedKept.stagedKey }), kept);
  assert.ok(job.routing && "stagedKey" in job.routing);
  assert.deepEqual(await getRoutingTarget(store, job.routing.stagedKey), routing);
  // What travels is what the agent reads back.
  assert.deepEqual(fromWire(JSON.stringify({ version: 2, ...job })), job);
});
