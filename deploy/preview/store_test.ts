import assert from "node:assert/strict";
import { PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { startS3, testAwsConfig } from "../../tests/support/s3.ts";
import { previewRecord } from "./record.ts";
import { destroyPreview, groupByPreview, listPreviews, writePreviewRecord } from "./store.ts";

Deno.test("groupByPreview() counts each preview's objects and finds its newest upload", () => {
  assert.deepEqual(
    groupByPreview([
      { key: "previews/pr-2/site/index.html", lastModified: 5, size: 1 },
      { key: "previews/pr-1/site/index.html", lastModified: 1, size: 1 },
      { key: "previews/pr-1/site/a.css", lastModified: 3, size: 1 },
      { key: "previews/pr-1/preview.json", lastModified: 2, size: 1 },
      { key: "previews/stray", lastModified: 9, size: 1 },
    ]),
    [
      { id: "pr-1", newestUpload: 3, objects: 3 },
      { id: "pr-2", newestUpload: 5, objects: 1 },
    ],
  );
});

Deno.test("preview store: list, record and destroy one preview leaving the others (s3rver)", async () => {
  await using s3 = await startS3(["preview-blog-123456789012"]);
  const client = new S3Client({ ...testAwsConfig, endpoint: s3.endpoint, forcePathStyle: true });
  const at = { s3: client, bucket: "preview-blog-123456789012" };
  const put = (Key: string) =>
    client.send(new PutObjectCommand({ Bucket: at.bucket, Key, Body: "x" }));
  try {
    assert.deepEqual(await listPreviews(at), []);
    for (
      const key of [
        "previews/pr-1/site/index.html",
        "previews/pr-1/site/a/b/c.css",
        "previews/pr-12/site/index.html",
        "state/preview.json",
        "builds/abc.json",
      ]
    ) {
      await put(key);
    }
    const record = previewRecord({
      id: "pr-1",
      url: "https://pr-1.preview.example.com",
      revision: "3f2a1b9c8d7e",
      deployedAt: new Date("2026-11-23T12:00:00Z"),
    });
    await writePreviewRecord(at, record);
    const listed = await listPreviews(at);
    assert.deepEqual(listed.map((p) => [p.id, p.objects, p.record]), [
      ["pr-1", 3, record],
      ["pr-12", 1, null],
    ]);
    assert.ok(listed[1]!.newestUpload > 0);

    assert.equal(await destroyPreview(at, "pr-1"), 3);
    assert.deepEqual((await listPreviews(at)).map((p) => p.id), ["pr-12"]);
    // An unknown id deletes nothing; pr-1's prefix never covered pr-12.
    assert.equal(await destroyPreview(at, "pr-1"), 0);
    assert.equal(await destroyPreview(at, "pr-404"), 0);
    assert.deepEqual((await listPreviews(at)).map((p) => p.id), ["pr-12"]);
  } finally {
    client.destroy();
  }
});
