/**
 * s3rver run as a Node subprocess, for sites past 1,000 keys: under Deno its listing
 * pagination breaks there (see DESIGN.md), under `node --openssl-legacy-provider` it pages
 * correctly. It imports `s3rver` from the `node_modules` Deno installs (`nodeModulesDir: auto`).
 * Its object writes land on disk before the PUT is answered, and a copy with replaced metadata
 * has its content's ETag, as `startS3`'s do.
 *
 * @module
 */
import type { S3Fixture } from "./s3.ts";

const NODE_SERVER = `
import { createRequire } from "node:module";
import { createHash, randomUUID } from "node:crypto";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
const [nodeModules, directory, staging, ...buckets] = process.argv.slice(2);
const require = createRequire(nodeModules + "/");
const S3rver = require("s3rver");
const server = new S3rver({ address: "127.0.0.1", port: 0, silent: true, directory,
  configureBuckets: buckets.map((name) => ({ name, configs: [] })) });
// s3rver 3.7.1 answers a PUT before its file is whole: write to a staging file, then rename.
const store = server.store;
store.putObject = async (object) => {
  const chunks = [];
  if (Buffer.isBuffer(object.content)) chunks.push(object.content);
  else for await (const chunk of object.content) chunks.push(chunk);
  const content = Buffer.concat(chunks);
  const md5 = createHash("md5").update(content).digest("hex");
  const path = store.getResourcePath(object.bucket, object.key, "object");
  await mkdir(dirname(path), { recursive: true });
  const temporary = join(staging, randomUUID());
  await writeFile(temporary, content);
  await rename(temporary, path);
  await store.putMetadata(object.bucket, object.key, object.metadata, md5);
  return { size: content.length, md5 };
};
// With x-amz-metadata-directive: REPLACE, s3rver 3.7.1 copies the bytes but keeps the
// destination's old .md5 file, so the copy's ETag is the MD5 of what was there before: carry the
// source's over, as S3's ETag of a copy is the MD5 of its content.
const copyObject = store.copyObject.bind(store);
store.copyObject = async (srcBucket, srcKey, destBucket, destKey, replacement) => {
  const md5 = (await store.getMetadata(srcBucket, srcKey)).etag.replaceAll('"', "");
  const out = await copyObject(srcBucket, srcKey, destBucket, destKey, replacement);
  if (!replacement) return out;
  await store.putMetadata(destBucket, destKey, replacement, md5);
  return store.getMetadata(destBucket, destKey);
};
const { port } = await server.run();
console.log(JSON.stringify({ port }));
const stop = async () => { await server.close(); process.exit(0); };
process.on("SIGTERM", stop);
process.stdin.on("end", stop);
process.stdin.resume();
`;

/**
 * Starts s3rver in a Node subprocess on a free loopback port with a fresh temp directory.
 *
 * @param buckets buckets to create up front
 * @returns the fixture; `await using` stops the process and removes its directory
 *
 * @example
 * ```ts
 * await using s3 = await startNodeS3(["site"]);
 * // new S3Client({ endpoint: s3.endpoint, forcePathStyle: true, ...testAwsConfig })
 * ```
 */
export async function startNodeS3(buckets: readonly string[] = []): Promise<S3Fixture> {
  const directory = await Deno.makeTempDir({ prefix: "s3rver-node-" });
  const script = `${directory}/server.mjs`;
  await Deno.writeTextFile(script, NODE_SERVER);
  await Deno.mkdir(`${directory}/data`);
  await Deno.mkdir(`${directory}/staging`);
  const nodeModules = new URL("../../node_modules", import.meta.url).pathname;
  const child = new Deno.Command("node", {
    args: [
      "--openssl-legacy-provider",
      script,
      nodeModules,
      `${directory}/data`,
      `${directory}/staging`,
      ...buckets,
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  while (!buffered.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("s3rver subprocess exited before listening");
    buffered += value;
  }
  reader.releaseLock();
  const { port } = JSON.parse(buffered.split("\n")[0]!) as { port: number };
  const close = async () => {
    await child.stdin.close().catch(() => {});
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    await child.status;
    await child.stdout.cancel().catch(() => {});
    await Deno.remove(directory, { recursive: true }).catch(() => {});
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    directory: `${directory}/data`,
    close,
    [Symbol.asyncDispose]: close,
  };
}
