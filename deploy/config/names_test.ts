import assert from "node:assert/strict";
import {
  normalizeDomain,
  PREVIEW_ENV,
  previewEnvironmentTag,
  previewHost,
  previewObjectTags,
  previewRouterName,
  previewUrl,
  previewWildcard,
  siteNames,
} from "./names.ts";

Deno.test("siteNames() derives every resource name from siteName and env", () => {
  assert.deepEqual(
    siteNames({ siteName: "blog", app: "blog.example.com" }, "staging", "123456789012"),
    {
      bucket: "staging-blog-123456789012",
      builderLogGroup: "/aws/microvms/staging-blog-builder",
      cdnLogGroup: "/blog/staging/cloudfront",
      cdnRegion: "us-east-1",
      deployRole: "staging-blog-gh",
      builderRole: "staging-blog-builder",
      builderImage: "staging-blog-builder",
      previewRole: "preview-blog-gh",
      pdsSecretName: "blog/atproto",
      tags: { app: "blog.example.com", environment: "staging" },
    },
  );
});

Deno.test("siteNames() leaves the bucket null until the account id is known", () => {
  assert.equal(siteNames({ siteName: "blog", app: "blog" }, "production").bucket, null);
});

Deno.test("preview names: router function, tags and the environment", () => {
  assert.equal(PREVIEW_ENV, "preview");
  assert.equal(previewRouterName("blog"), "preview-blog-router");
  assert.match(previewRouterName("a".repeat(40)), /^[a-zA-Z0-9-_]{1,64}$/);
  assert.equal(previewEnvironmentTag("pr-42"), "preview-pr-42");
  assert.deepEqual(previewObjectTags("blog.example.com", "pr-42"), {
    app: "blog.example.com",
    environment: "preview-pr-42",
  });
});

Deno.test("preview URL: https://<id>.<domain>, whatever case or trailing dot the domain has", () => {
  assert.equal(previewUrl("pr-42", "preview.example.com"), "https://pr-42.preview.example.com");
  assert.equal(previewUrl("pr-42", "Preview.Example.COM."), "https://pr-42.preview.example.com");
  assert.equal(previewHost("pr-1", "p.example.com"), "pr-1.p.example.com");
  assert.equal(previewWildcard("Preview.example.com."), "*.preview.example.com");
  assert.equal(normalizeDomain(" A.B. "), "a.b");
});
