// deno-lint-ignore-file no-console -- a benchmark prints its results
/**
 * Sync benchmark: a generated site of 10,000 files (~100 MB) synced to s3rver three times —
 * first deploy, identical redeploy (must upload and invalidate nothing), and a 1% change —
 * beside the floor measured in the same run: the MD5 of all bytes and the listing of the
 * prefix. s3rver runs as a Node subprocess because its listing pagination breaks past 1,000
 * keys under Deno (see DESIGN.md).
 *
 * Prints `name: value unit` lines. `deno task bench deploy_sync`.
 *
 * @module
 */
import { S3Client } from "@aws-sdk/client-s3";
import { type SyncResult, syncSite } from "../deploy/sync/engine.ts";
import { listSite } from "../deploy/sync/remote.ts";
import { hashFile } from "../deploy/sync/local_files.ts";
import { planInvalidation } from "../deploy/cdn/plan_invalidation.ts";
import { mapLimited } from "@org/shared";
import { type S3Fixture, testAwsConfig } from "../tests/support/s3.ts";
import { startNodeS3 } from "../tests/support/s3_node.ts";
import { fill, generateSite, line, mb } from "./support/site_files.ts";

const FILES = Number(Deno.env.get("BENCH_SYNC_FILES") ?? 10_000);
const TOTAL_BYTES = Number(Deno.env.get("BENCH_SYNC_BYTES") ?? 100 * 1024 * 1024);
const BUCKET = "bench-site";
const PREFIX = "site/";

function report(name: string, r: SyncResult, ms: number, scannedBytes: number) {
  line(`${name}_time`, ms, "ms");
  line(`${name}_uploaded`, r.uploaded.length, "files");
  line(`${name}_deleted`, r.deleted.length, "files");
  line(`${name}_invalidation_paths`, planInvalidation(r.changedKeys, 1000).length, "paths");
  line(`${name}_files_per_s`, (r.plan.uploads.length + r.unchanged) / (ms / 1000), "files/s");
  line(`${name}_scan_mb_per_s`, mb(scannedBytes) / (ms / 1000), "MB/s");
  line(`${name}_upload_mb_per_s`, mb(r.bytesUploaded) / (ms / 1000), "MB/s");
  line(`${name}_list_time`, r.timings.listMs, "ms");
  line(`${name}_scan_time`, r.timings.scanMs, "ms");
}

const work = await Deno.makeTempDir({ prefix: "bench-deploy-sync-" });
let server: S3Fixture | undefined;
let s3: S3Client | undefined;
let failed = false;
try {
  const dist = `${work}/dist`;
  const site = await generateSite(dist, FILES, TOTAL_BYTES);
  line("site_files", FILES, "files");
  line("site_size", mb(site.bytes), "MB");

  server = await startNodeS3([BUCKET]);
  s3 = new S3Client({ ...testAwsConfig, endpoint: server.endpoint, forcePathStyle: true });
  const target = {
    s3,
    bucket: BUCKET,
    prefix: PREFIX,
    distDir: dist,
    tags: { app: "bench", environment: "bench" },
  };

  // Floor 1: the MD5 of every byte (read + hash), at the same parallelism as the engine.
  let t = performance.now();
  await mapLimited(site.keys, 8, async (key) => void await hashFile(`${dist}/${key}`));
  const md5Ms = performance.now() - t;
  line("floor_md5_all_time", md5Ms, "ms");
  line("floor_md5_all_mb_per_s", mb(site.bytes) / (md5Ms / 1000), "MB/s");

  t = performance.now();
  const first = await syncSite(target);
  const firstMs = performance.now() - t;
  report("first_deploy", first, firstMs, site.bytes);

  // Floor 2: listing the whole prefix once it is full.
  t = performance.now();
  const listed = await listSite(target);
  const listMs = performance.now() - t;
  line("floor_list_prefix_time", listMs, "ms");
  line("floor_list_prefix_keys", listed.length, "keys");

  t = performance.now();
  const same = await syncSite(target);
  const sameMs = performance.now() - t;
  report("redeploy_identical", same, sameMs, site.bytes);
  const beyond = sameMs - same.timings.listMs;
  line("redeploy_identical_tool_time_beyond_listing", beyond, "ms");
  line("redeploy_identical_ratio_to_floor", sameMs / Math.max(md5Ms, listMs), "x");
  line("redeploy_identical_ratio_to_md5_floor", beyond / md5Ms, "x");
  if (same.uploaded.length !== 0 || planInvalidation(same.changedKeys, 1000).length !== 0) {
    console.error("bench: identical redeploy uploaded or invalidated something");
    failed = true;
  }

  const changed = site.keys.filter((_, i) => i % 100 === 0);
  for (const key of changed) {
    const path = `${dist}/${key}`;
    await Deno.writeFile(path, fill((await Deno.stat(path)).size));
  }
  t = performance.now();
  const delta = await syncSite(target);
  const deltaMs = performance.now() - t;
  report("change_1pct", delta, deltaMs, site.bytes);
  line("change_1pct_ratio_to_floor", deltaMs / Math.max(md5Ms, listMs), "x");
  if (delta.uploaded.length !== changed.length) {
    console.error(`bench: 1% change uploaded ${delta.uploaded.length}, expected ${changed.length}`);
    failed = true;
  }
} finally {
  s3?.destroy();
  await server?.close();
  await Deno.remove(work, { recursive: true }).catch(() => {});
}
if (failed) Deno.exit(1);
