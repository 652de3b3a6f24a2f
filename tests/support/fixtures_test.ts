import assert from "node:assert/strict";
import {
  CreateBucketCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { startS3, testAwsConfig } from "./s3.ts";
import { startOidcProvider } from "./oidc.ts";

Deno.test("startS3() serves the real S3 client on loopback and cleans up", async () => {
  await using s3 = await startS3(["fixture"]);
  assert.match(s3.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
  const client = new S3Client({ ...testAwsConfig, endpoint: s3.endpoint, forcePathStyle: true });
  try {
    await client.send(new CreateBucketCommand({ Bucket: "other" }));
    await client.send(new PutObjectCommand({ Bucket: "fixture", Key: "a.txt", Body: "hello" }));
    const got = await client.send(new GetObjectCommand({ Bucket: "fixture", Key: "a.txt" }));
    assert.equal(await got.Body!.transformToString(), "hello");
  } finally {
    client.destroy();
  }
});

Deno.test("startS3(): a GET during a PUT of the same key reads the old object whole", async () => {
  // s3rver 3.7.1 truncated the object file and wrote it in place, answering before the write
  // was on disk: a read of the environment state just after (or during) its write got half a
  // JSON document. A reader must see the old object or the new one, never a mix.
  await using s3 = await startS3(["site"]);
  const url = `${s3.endpoint}/site/state/production.json`;
  const old = JSON.stringify({ version: 1 });
  assert.equal((await fetch(url, { method: "PUT", body: old })).status, 200);
  const head = `{"version":2,"pad":"${"x".repeat(100_000)}`;
  const tail = '"}';
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => finish = resolve);
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(new TextEncoder().encode(head));
      await finished;
      controller.enqueue(new TextEncoder().encode(tail));
      controller.close();
    },
  });
  const headers = { "content-length": String(head.length + tail.length) };
  const put = fetch(url, { method: "PUT", body, headers });
  // Time for the peer to take in the first half. A sound peer passes however long this is; the
  // wait only gives a peer that writes in place the chance to show it.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const during = await (await fetch(url)).text();
  finish();
  const written = await put;
  await written.body?.cancel();
  assert.equal(during, old);
  assert.equal(written.status, 200);
  assert.equal(await (await fetch(url)).text(), head + tail);
});

Deno.test("startOidcProvider() publishes discovery and a JWKS on loopback", async () => {
  await using idp = await startOidcProvider();
  const res = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
  const doc = await res.json();
  assert.equal(doc.issuer, idp.issuer);
  const jwks = await (await fetch(doc.jwks_uri)).json();
  assert.equal(jwks.keys.length, 1);
});
