import assert from "node:assert/strict";
import { resolveSiteConfig } from "../config/site_config.ts";
import { DeployError } from "../errors.ts";
import { previewConfigIssues, previewTarget, requirePreviewConfig } from "./open_preview.ts";

function loaded(raw: Record<string, unknown>) {
  const result = resolveSiteConfig({ siteName: "blog", app: "blog", ...raw }, {
    env: "preview",
    repoDir: "/src/blog",
    accountId: "123456789012",
  });
  if (!("config" in result)) throw new Error(JSON.stringify(result.errors));
  return {
    env: "preview",
    repoDir: "/src/blog",
    file: "/src/blog/config/preview.jsonc",
    accountId: "123456789012",
    config: result.config,
    names: {} as never,
  };
}

Deno.test("previewConfigIssues(): domain and githubRepo are required for previews, both named", () => {
  assert.deepEqual(previewConfigIssues(loaded({}).config).map((i) => i.path), [
    "domain",
    "githubRepo",
  ]);
  assert.deepEqual(
    previewConfigIssues(loaded({ domain: "p.example.com", githubRepo: "a/b" }).config),
    [],
  );
  assert.throws(() => requirePreviewConfig(loaded({ domain: "p.example.com" })), (err) => {
    assert.ok(err instanceof DeployError);
    assert.equal(err.code, "config_invalid");
    assert.deepEqual(err.issues.map((i) => i.path), ["githubRepo"]);
    assert.match(err.message, /config\/preview\.jsonc/);
    return true;
  });
});

Deno.test("previewTarget(): prefix, object tags and origin of one preview", () => {
  const site = loaded({ domain: "Preview.Example.com", githubRepo: "acme/blog" });
  assert.deepEqual(previewTarget({ site }, "pr-42"), {
    prefix: "previews/pr-42/site/",
    tags: { app: "blog", environment: "preview-pr-42" },
    origin: "https://pr-42.preview.example.com",
  });
});
