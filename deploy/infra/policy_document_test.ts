import assert from "node:assert/strict";
import { bucketPolicy } from "./nodes/bucket_policy.ts";
import { canonicalJson, samePolicy } from "./policy_document.ts";
import { BUCKET, DIST_ARN } from "./nodes/_test_site.ts";

Deno.test("samePolicy() compares documents as data, whatever the key order or URL encoding", () => {
  const policy = bucketPolicy(BUCKET, DIST_ARN);
  const reordered = JSON.stringify(JSON.parse(canonicalJson(policy)));
  assert.ok(samePolicy(reordered, policy));
  assert.ok(samePolicy(encodeURIComponent(JSON.stringify(policy)), policy));
  assert.ok(!samePolicy(JSON.stringify(bucketPolicy(BUCKET, DIST_ARN + "X")), policy));
  assert.ok(!samePolicy(undefined, policy));
});
