import assert from "node:assert/strict";
import { blobCid, recordCid } from "./cid.ts";

Deno.test("blobCid() is the raw SHA-256 CIDv1 a PDS answers for the bytes", async () => {
  // sha256("hello") in a CIDv1 raw: the value every IPFS/atproto implementation gives.
  assert.equal(
    await blobCid(new TextEncoder().encode("hello")),
    "bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq",
  );
});

Deno.test("recordCid() does not depend on key order, and a $link is a link, not a string", async () => {
  const a = await recordCid({ $type: "x", a: 1, b: "two" });
  assert.equal(a, await recordCid({ b: "two", a: 1, $type: "x" }));
  assert.match(a, /^bafyrei[a-z2-7]{52}$/);
  const link = "bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq";
  assert.notEqual(await recordCid({ ref: { $link: link } }), await recordCid({ ref: { l: link } }));
});
