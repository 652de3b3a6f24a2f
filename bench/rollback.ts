// deno-lint-ignore-file no-console -- a benchmark prints its results
/**
 * Rollback benchmark: a site of 10,000 files (~100 MB) deployed through the real pipeline (zip,
 * `deno task build`, sync, kept output) to s3rver, then rolled back two ways when 1 % and when
 * 100 % of its files differ from the live site: restoring the kept output server-side (what
 * `rollback` does within `retention.buildsDays`) and rebuilding the stored source and deploying
 * it (what it does past the retention, here on this machine rather than in a MicroVM, so
 * without the VM's start-up). The floor beside them: listing the live prefix, which both make.
 * s3rver runs as a Node subprocess (its listing breaks past 1,000 keys under Deno).
 *
 * Prints `name: value unit` lines. `deno task bench rollback`.
 *
 * @module
 */
import { S3Client } from "@aws-sdk/client-s3";
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import { silentLogger } from "@org/shared";
import { type DeployInput, type DeploySummary, runDeploy } from "../deploy/pipeline/deploy.ts";
import { createLocalBuilder } from "../deploy/builders/local.ts";
import { chooseRollbackMethod } from "../deploy/build_records/output_store.ts";
import { listSite } from "../deploy/sync/remote.ts";
import { BUILD_SCRIPT } from "../tests/deploy/site_repo.ts";
import { startCloudFrontFake } from "../tests/fakes/cloudfront.ts";
import { type S3Fixture, testAwsConfig } from "../tests/support/s3.ts";
import { loopbackDeployInput } from "../tests/support/deploy_input.ts";
import { startNodeS3 } from "../tests/support/s3_node.ts";
import { fill, generateSite, line, mb } from "./support/site_files.ts";

const FILES = Number(Deno.env.get("BENCH_ROLLBACK_FILES") ?? 10_000);
const TOTAL_BYTES = Number(Deno.env.get("BENCH_ROLLBACK_BYTES") ?? 100 * 1024 * 1024);
const BUCKET = "bench-site";

const work = await Deno.makeTempDir({ prefix: "bench-rollback-" });
let server: S3Fixture | undefined;
let failed = false;
const cf = startCloudFrontFake();
cf.state.seedDistribution("EDIST");
const cloudfront = new CloudFrontClient({ ...testAwsConfig, endpoint: cf.endpoint });
let s3: S3Client | undefined;
try {
  const repo = `${work}/repo`;
  await Deno.mkdir(repo);
  await Deno.writeTextFile(
    `${repo}/deno.json`,
    JSON.stringify({ tasks: { build: "deno run --allow-read=. --allow-write=dist build.js" } }),
  );
  await Deno.writeTextFile(`${repo}/build.js`, BUILD_SCRIPT);
  const site = await generateSite(`${repo}/src`, FILES, TOTAL_BYTES);
  line("site_files", FILES, "files");
  line("site_size", mb(site.bytes), "MB");

  server = await startNodeS3([BUCKET]);
  s3 = new S3Client({ ...testAwsConfig, endpoint: server.endpoint, forcePathStyle: true });
  let revision = "";
  const target = {
    repoRoot: repo,
    bucket: BUCKET,
    clients: { s3, cloudfront },
    revision: () => revision,
    builder: createLocalBuilder({ s3, logger: silentLogger, tempRoot: work }),
  };
  const input = (source: DeployInput["source"]) =>
    loopbackDeployInput(target, { source, tempRoot: work, force: true });
  const fromTree = { sourceIgnore: ["dist/"], sourceInclude: [] };
  const deploy = async (id: string) => {
    revision = id;
    return await runDeploy(input(fromTree));
  };
  const change = async (share: number) => {
    const step = Math.round(1 / share);
    const keys = site.keys.filter((_, i) => i % step === 0);
    for (const key of keys) {
      const path = `${repo}/src/${key}`;
      await Deno.writeFile(path, fill((await Deno.stat(path)).size));
    }
    return keys.length;
  };
  const timed = async (name: string, run: () => Promise<DeploySummary>, expected: number) => {
    const t = performance.now();
    const out = await run();
    const ms = performance.now() - t;
    line(`${name}_time`, ms, "ms");
    line(`${name}_files_changed`, out.uploaded, "files");
    if (out.uploaded !== expected) {
      console.error(`bench: ${name} changed ${out.uploaded} files, expected ${expected}`);
      failed = true;
    }
    return ms;
  };
  // What `rollback` does within the retention: read the manifest, list the kept objects,
  // decide, then the pipeline.
  const restore = async (id: string) => {
    const chosen = await chooseRollbackMethod({ s3: s3!, bucket: BUCKET }, id, Date.now(), 30);
    if (chosen.method !== "restore") throw new Error(`${id}: ${chosen.reason}`);
    return await runDeploy(input({ storedOutput: chosen.manifest }));
  };
  const rebuild = (id: string) => runDeploy(input({ storedBuild: id }));

  let t = performance.now();
  await deploy("a00000000001");
  line("first_deploy_time", performance.now() - t, "ms");
  t = performance.now();
  const listed = await listSite({ s3, bucket: BUCKET, prefix: "site/" });
  line("floor_list_prefix_time", performance.now() - t, "ms");
  line("floor_list_prefix_keys", listed.length, "keys");

  // 1 %: B differs from A in 100 files. Live B → restore A, then live A → rebuild B.
  const onePct = await change(0.01);
  await deploy("b00000000001");
  const restore1 = await timed("rollback_restore_1pct", () => restore("a00000000001"), onePct);
  const rebuild1 = await timed("rollback_rebuild_1pct", () => rebuild("b00000000001"), onePct);
  line("rollback_1pct_speedup", rebuild1 / restore1, "x");

  // 100 %: C differs from A everywhere. Live C → restore A, then live A → rebuild C.
  const all = await change(1);
  await deploy("c00000000001");
  const restoreAll = await timed("rollback_restore_100pct", () => restore("a00000000001"), all);
  const rebuildAll = await timed("rollback_rebuild_100pct", () => rebuild("c00000000001"), all);
  line("rollback_100pct_speedup", rebuildAll / restoreAll, "x");
  if (restore1 >= 5000) {
    console.error(`bench: the 1% rollback took ${Math.round(restore1)} ms (aim: under 5 s)`);
  }
} finally {
  s3?.destroy();
  cloudfront.destroy();
  await cf.close();
  await server?.close();
  await Deno.remove(work, { recursive: true }).catch(() => {});
}
if (failed) Deno.exit(1);
