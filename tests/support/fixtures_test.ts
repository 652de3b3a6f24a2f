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

Deno.test("startOidcProvider() publishes discovery and a JWKS on loopback", async () => {
  await using idp = await startOidcProvider();
  const res = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
  const doc = await res.json();
  assert.equal(doc.issuer, idp.issuer);
  const jwks = await (await fetch(doc.jwks_uri)).json();
  assert.equal(jwks.keys.length, 1);
});
