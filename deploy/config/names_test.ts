import assert from "node:assert/strict";
import { siteNames } from "./names.ts";

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
      analytics: {
        tableBucket: "staging-blog-analytics",
        namespace: "web",
        table: "page_views",
        bots: "flag",
        saltSecretName: "blog/staging/analytics-salt",
        dashboardPort: 4317,
      },
      tags: { app: "blog.example.com", environment: "staging" },
    },
  );
});

Deno.test("siteNames() leaves the bucket null until the account id is known", () => {
  assert.equal(siteNames({ siteName: "blog", app: "blog" }, "production").bucket, null);
});
