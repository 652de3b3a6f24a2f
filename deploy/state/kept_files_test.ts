import assert from "node:assert/strict";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { startS3, testAwsConfig } from "../../tests/support/s3.ts";
import { keptFilesCopyKey, keptFilesKey } from "./bucket_layout.ts";
import { keptTotals, parseKeptFiles, readKeptFiles, writeKeptFiles } from "./kept_files.ts";

const A = { key: "assets/a.js", size: 10, since: "2026-06-01T00:00:00.000Z" };
const B = { key: "assets/b.css", size: 5, since: "2026-06-02T00:00:00.000Z" };

Deno.test("keptFilesKey() puts the kept list beside the environment's state; a MicroVM build reads a copy beside its source", () => {
  assert.equal(keptFilesKey("production"), "state/production.kept.json");
  assert.equal(keptFilesCopyKey("3f2a1b9c8d7e"), "build/3f2a1b9c8d7e.kept.json");
});

Deno.test("parseKeptFiles() keeps well-formed entries and reads anything else as no list", () => {
  assert.deepEqual(
    parseKeptFiles(JSON.stringify({ version: 1, files: [A, { key: 1 }, { ...B, extra: true }] })),
    [A, B],
  );
  for (const text of ["{", "null", "[]", '{"files":"x"}']) {
    assert.deepEqual(parseKeptFiles(text), []);
  }
});

Deno.test("keptTotals() counts files and bytes", () => {
  assert.deepEqual(keptTotals([A, B]), { files: 2, bytes: 15 });
  assert.deepEqual(keptTotals([]), { files: 0, bytes: 0 });
});

Deno.test("writeKeptFiles() stores a changed list, reads back the same, writes nothing for an unchanged one, and removes the record once nothing is kept", async () => {
  await using s3rver = await startS3(["site"]);
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3rver.endpoint, forcePathStyle: true });
  try {
    const at = { s3, bucket: "site", key: keptFilesKey("production") };
    assert.deepEqual(await readKeptFiles(at), []);
    await writeKeptFiles(at, [], [A, B]);
    assert.deepEqual(await readKeptFiles(at), [A, B]);
    await writeKeptFiles(at, [A], [A]); // unchanged: the stored [A, B] stays as it is
    assert.deepEqual(await readKeptFiles(at), [A, B]);
    await writeKeptFiles(at, [A, B], []);
    assert.deepEqual(await readKeptFiles(at), []);
    await assert.rejects(
      s3.send(new GetObjectCommand({ Bucket: "site", Key: at.key })),
      (err: Error) => err.name === "NoSuchKey",
    );
  } finally {
    s3.destroy();
  }
});
