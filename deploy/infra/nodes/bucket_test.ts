import assert from "node:assert/strict";
import {
  ABORT_INCOMPLETE_UPLOADS_RULE,
  abortsIncompleteUploads,
  bucketDrift,
  keptOutputsRule,
  lifecycleRuleDrift,
  PUBLIC_ACCESS_BLOCK,
  withLifecycleRules,
} from "./bucket.ts";

Deno.test("bucketDrift() reports open public access, ACL ownership and missing tags", () => {
  const tags = { app: "blog", environment: "production" };
  assert.deepEqual(
    bucketDrift(
      {
        publicAccessBlock: PUBLIC_ACCESS_BLOCK,
        ownership: "BucketOwnerEnforced",
        tags,
        lifecycleRules: [ABORT_INCOMPLETE_UPLOADS_RULE],
      },
      tags,
    ),
    [],
  );
  assert.deepEqual(
    bucketDrift({
      publicAccessBlock: { ...PUBLIC_ACCESS_BLOCK, BlockPublicPolicy: false },
      ownership: "ObjectWriter",
      tags: { app: "blog" },
      lifecycleRules: undefined,
    }, tags),
    [
      "public access not blocked (BlockPublicPolicy off)",
      "object ownership ObjectWriter, want BucketOwnerEnforced",
      "tag environment=(missing), want production",
      "no lifecycle rule removing incomplete multipart uploads",
    ],
  );
});

Deno.test("abortsIncompleteUploads() takes an owner's equivalent rule, not a disabled or partial one", () => {
  const rule = ABORT_INCOMPLETE_UPLOADS_RULE;
  assert.ok(abortsIncompleteUploads([rule]));
  assert.ok(
    abortsIncompleteUploads([{
      ID: "mine",
      Status: "Enabled",
      AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
    }]),
  );
  assert.ok(!abortsIncompleteUploads(undefined));
  assert.ok(!abortsIncompleteUploads([{ ...rule, Status: "Disabled" }]));
  assert.ok(!abortsIncompleteUploads([{ ...rule, Filter: { Prefix: "builds/" } }]));
  // The older rule-level Prefix scopes a rule just the same.
  const { Filter: _f, ...unfiltered } = rule;
  assert.ok(!abortsIncompleteUploads([{ ...unfiltered, Prefix: "tmp/" }]));
  assert.ok(abortsIncompleteUploads([{ ...unfiltered, Prefix: "" }]));
  assert.ok(
    !abortsIncompleteUploads([{
      ID: "x",
      Status: "Enabled",
      Expiration: { Days: 30 },
      Filter: { Prefix: "" },
    }]),
  );
});

Deno.test("withLifecycleRules() keeps the owner's rules and matches their style", () => {
  const modern = { ID: "old-builds", Status: "Enabled" as const, Filter: { Prefix: "builds/" } };
  assert.deepEqual(withLifecycleRules([modern]), [modern, ABORT_INCOMPLETE_UPLOADS_RULE]);
  const legacy = { ID: "tmp", Status: "Enabled" as const, Prefix: "tmp/", Expiration: { Days: 1 } };
  const out = withLifecycleRules([legacy]);
  assert.deepEqual(out[0], legacy);
  assert.equal(out[1]?.Filter, undefined, "no Filter beside a rule-level Prefix");
  assert.equal(out[1]?.Prefix, "");
  assert.ok(abortsIncompleteUploads(out));
  // A stale copy of ours is replaced, not duplicated.
  const stale = { ...ABORT_INCOMPLETE_UPLOADS_RULE, Status: "Disabled" as const };
  assert.deepEqual(withLifecycleRules([stale]), [ABORT_INCOMPLETE_UPLOADS_RULE]);
});

Deno.test("bucket: the kept-output expiry rule is drift until it exists with the configured days", () => {
  const want = keptOutputsRule(30);
  assert.deepEqual(want.Expiration, { Days: 60 });
  assert.deepEqual(want.Filter, { Prefix: "outputs/" });
  assert.deepEqual(lifecycleRuleDrift(undefined, want), [
    "no lifecycle rule deploy-expire-kept-build-outputs",
  ]);
  assert.deepEqual(lifecycleRuleDrift([keptOutputsRule(10)], want), [
    "lifecycle rule deploy-expire-kept-build-outputs expires after 20 days, want 60",
  ]);
  assert.deepEqual(lifecycleRuleDrift([{ ...want, Status: "Disabled" }], want), [
    "lifecycle rule deploy-expire-kept-build-outputs is disabled",
  ]);
  assert.deepEqual(lifecycleRuleDrift([want], want), []);
  // Rewritten beside an owner's older-style rule, ours keep their scope as a rule-level Prefix.
  const legacy = { ID: "tmp", Status: "Enabled" as const, Prefix: "tmp/", Expiration: { Days: 1 } };
  const out = withLifecycleRules([legacy, keptOutputsRule(10)], [want]);
  assert.deepEqual(out.map((r) => r.ID), [
    "tmp",
    ABORT_INCOMPLETE_UPLOADS_RULE.ID,
    "deploy-expire-kept-build-outputs",
  ]);
  assert.equal(out[2]?.Prefix, "outputs/");
  assert.deepEqual(lifecycleRuleDrift(out, want), []);
});
