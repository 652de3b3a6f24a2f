import assert from "node:assert/strict";
import { DeployError } from "../errors.ts";
import { scanSite } from "../sync/local_files.ts";
import { readRuleFiles } from "./site_rules.ts";

async function site(files: Record<string, string>): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "rules-" });
  for (const [name, text] of Object.entries(files)) {
    await Deno.mkdir(`${dir}/${name}`.replace(/\/[^/]*$/, ""), { recursive: true });
    await Deno.writeTextFile(`${dir}/${name}`, text);
  }
  return dir;
}

Deno.test("readRuleFiles() reads _redirects and _headers, and the sync never lists them", async () => {
  const dir = await site({
    "index.html": "<h1>hi</h1>",
    _redirects: "/blog/* /posts/:splat 302\n",
    _headers: "/*\n  X-Frame-Options: DENY\n",
    "docs/_redirects": "not the root: an ordinary file",
  });
  try {
    assert.deepEqual(await readRuleFiles(dir), {
      redirects: [{ from: "/blog/*", to: "/posts/:splat", status: 302, force: false }],
      headers: [{ for: "/*", values: { "X-Frame-Options": "DENY" } }],
    });
    assert.deepEqual((await scanSite(dir)).map((f) => f.key), ["docs/_redirects", "index.html"]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readRuleFiles() holds no rules when the files are absent", async () => {
  const dir = await site({ "index.html": "x" });
  try {
    assert.deepEqual(await readRuleFiles(dir), { redirects: [], headers: [] });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readRuleFiles() reports every field problem of the files with file:line paths", async () => {
  const dir = await site({
    _redirects: "/a /b 303\n/c/:id /d/:slug\n/p/* https://other.example/:splat 200\n",
    _headers: "/*\n  Connection: close\n  Bad Name: x\n",
  });
  try {
    await assert.rejects(() => readRuleFiles(dir), (err: unknown) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "rules_invalid");
      const lines = err.issues.map((i) => `${i.path}: ${i.message}`);
      for (
        const want of [
          "_redirects:1.status: must be one of",
          "_redirects:2.to: uses :slug",
          "_redirects:3.to: must be a path for status 200",
          "_headers:1.values.Connection: must not be a hop-by-hop header",
        ]
      ) assert.ok(lines.some((l) => l.startsWith(want)), `${want} not in\n${lines.join("\n")}`);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readRuleFiles() refuses a file over 1 MiB without reading it whole", async () => {
  const dir = await site({ _redirects: "# x\n".repeat(300_000) });
  try {
    await assert.rejects(() => readRuleFiles(dir), /_redirects is too large: 1200000 bytes/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("readRuleFiles() refuses a target leaving the site root, naming file and line", async () => {
  const dir = await site({
    _redirects: [
      "/ok /docs/./guide 200",
      "/x /../state/production.json 200",
      "/y /a/../../locks/production.json 200",
      "/z /%2e%2e/state/production.json 404",
      "/w https://www.example.com/%2E%2E/state/production.json 301",
      "/v https://elsewhere.example/../x 301",
    ].join("\n"),
  });
  try {
    await assert.rejects(() => readRuleFiles(dir, "https://www.example.com"), (err: unknown) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "rules_invalid");
      assert.deepEqual(err.issues.map((i) => i.path), [
        "_redirects:2.to",
        "_redirects:3.to",
        "_redirects:4.to",
        "_redirects:5.to",
      ]);
      assert.match(err.issues[0]!.message, /must stay inside the site root/);
      return true;
    });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
