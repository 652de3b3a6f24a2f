import assert from "node:assert/strict";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { startS3, testAwsConfig } from "../../tests/support/s3.ts";
import {
  downloadToFile,
  getObjectText,
  getText,
  listObjects,
  objectExists,
  putBytes,
  putJson,
  putJsonIf,
  removeObject,
} from "./s3_objects.ts";

async function bucket() {
  const s3rver = await startS3(["b"]);
  const s3 = new S3Client({ ...testAwsConfig, endpoint: s3rver.endpoint, forcePathStyle: true });
  return {
    at: { s3, bucket: "b" },
    [Symbol.asyncDispose]: async () => {
      s3.destroy();
      await s3rver.close();
    },
  };
}

Deno.test("s3 objects: JSON written is read back, listed and removed; absence is not an error", async () => {
  await using t = await bucket();
  assert.equal(await getText(t.at, "state/x.json"), undefined);
  assert.equal(await objectExists(t.at, "state/x.json"), false);
  await putJson(t.at, "state/x.json", { a: 1 });
  await putJson(t.at, "state/y/z.json", [true]);
  assert.deepEqual(JSON.parse((await getText(t.at, "state/x.json"))!), { a: 1 });
  assert.equal(await objectExists(t.at, "state/x.json"), true);
  assert.deepEqual((await listObjects(t.at, "state/")).map((o) => o.key), [
    "state/x.json",
    "state/y/z.json",
  ]);
  await removeObject(t.at, "state/x.json");
  await removeObject(t.at, "state/x.json");
  assert.deepEqual((await listObjects(t.at, "state/")).map((o) => o.key), ["state/y/z.json"]);
});

Deno.test("s3 objects: a conditional write succeeds once and only on the version read", async () => {
  await using t = await bucket();
  const created = await putJsonIf(t.at, "locks/p.json", { n: 1 }, { IfNoneMatch: "*" });
  assert.equal(created, (await getObjectText(t.at, "locks/p.json"))!.etag);
  assert.equal(await putJsonIf(t.at, "locks/p.json", { n: 2 }, { IfNoneMatch: "*" }), undefined);
  const replaced = await putJsonIf(t.at, "locks/p.json", { n: 3 }, { IfMatch: created! });
  assert.notEqual(replaced, undefined);
  assert.equal(await putJsonIf(t.at, "locks/p.json", { n: 4 }, { IfMatch: created! }), undefined);
  assert.deepEqual(JSON.parse((await getText(t.at, "locks/p.json"))!), { n: 3 });
});

Deno.test("s3 objects: a conditional delete removes only the version named", async () => {
  await using t = await bucket();
  const first = (await putJsonIf(t.at, "locks/p.json", { n: 1 }, { IfNoneMatch: "*" }))!;
  await putJsonIf(t.at, "locks/p.json", { n: 2 }, { IfMatch: first });
  assert.equal(await removeObject(t.at, "locks/p.json", first), false);
  assert.deepEqual(JSON.parse((await getText(t.at, "locks/p.json"))!), { n: 2 });
  const second = (await getObjectText(t.at, "locks/p.json"))!.etag;
  assert.equal(await removeObject(t.at, "locks/p.json", second), true);
  assert.equal(await objectExists(t.at, "locks/p.json"), false);
  assert.equal(await removeObject(t.at, "locks/p.json", second), true, "absent: nothing to do");
});

Deno.test("s3 objects: bytes are stored as given, with their length and media type", async () => {
  await using t = await bucket();
  const zip = new Uint8Array([0x50, 0x4b, 0x03, 0x04, 0, 255]);
  await putBytes(t.at, "build/b1.zip", zip, "application/zip");
  const out = await t.at.s3.send(new GetObjectCommand({ Bucket: "b", Key: "build/b1.zip" }));
  assert.equal(out.ContentType, "application/zip");
  assert.equal(out.ContentLength, zip.byteLength);
  assert.deepEqual(await out.Body!.transformToByteArray(), zip);
});

Deno.test("s3 objects: an object streams into a new file; a missing one makes no file", async () => {
  await using t = await bucket();
  const dir = await Deno.makeTempDir({ prefix: "s3-download-" });
  try {
    const zip = new Uint8Array(70_000).map((_, i) => i % 251);
    await putBytes(t.at, "build/b1.zip", zip, "application/zip");
    assert.equal(await downloadToFile(t.at, "build/b1.zip", `${dir}/b1.zip`), true);
    assert.deepEqual(await Deno.readFile(`${dir}/b1.zip`), zip);
    assert.equal(await downloadToFile(t.at, "build/b2.zip", `${dir}/b2.zip`), false);
    await assert.rejects(Deno.stat(`${dir}/b2.zip`), Deno.errors.NotFound);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
