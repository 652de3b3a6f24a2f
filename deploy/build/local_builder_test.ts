import assert from "node:assert/strict";
import { createLocalBuilder } from "./local_builder.ts";
import { buildDeadlineMs } from "./builder.ts";
import { stripPath } from "./run_steps.ts";
import { createSourceZip } from "../source/zip.ts";
import { makeTree } from "../source/_test_tree.ts";
import { DeployError } from "../errors.ts";

async function zipOf(files: Record<string, string>) {
  const repo = await makeTree(files);
  const out = await Deno.makeTempDir();
  const zip = await createSourceZip({
    repoRoot: repo,
    sourceIgnore: [],
    sourceInclude: [],
    outPath: `${out}/src.zip`,
  });
  return {
    path: zip.path,
    [Symbol.asyncDispose]: async () => {
      await Deno.remove(repo, { recursive: true });
      await Deno.remove(out, { recursive: true });
    },
  };
}

const denoSite = (build: string) => ({
  "site/deno.json": JSON.stringify({ tasks: { build } }),
  "site/src/index.html": "<h1>built</h1>",
});

Deno.test("buildDeadlineMs() is maxDurationSeconds plus 60 s", () => {
  assert.equal(buildDeadlineMs(1800), 1_860_000);
  assert.equal(buildDeadlineMs(1), 61_000);
});

Deno.test("local builder runs install and build in paths.app and returns paths.dist from the root", async () => {
  await using zip = await zipOf(
    denoSite("mkdir -p ../out && cp src/index.html ../out/index.html && echo built-ok"),
  );
  const lines: string[] = [];
  const out = await createLocalBuilder().build({
    buildId: "abc",
    sourceZip: zip.path,
    paths: { app: "site", dist: "out" },
    maxDurationSeconds: 60,
    onOutput: (line) => lines.push(line),
  });
  assert.equal(out.kind, "directory");
  if (out.kind !== "directory") return;
  try {
    assert.equal(await Deno.readTextFile(`${out.distDir}/index.html`), "<h1>built</h1>");
    assert.ok(lines.includes("built-ok"), `streamed output: ${lines.join("|")}`);
  } finally {
    await out.dispose();
  }
  assert.equal(await Deno.stat(out.distDir).catch(() => undefined), undefined);
});

Deno.test("local builder reports a failing build with its exit code", async () => {
  await using zip = await zipOf(denoSite("exit 3"));
  await assert.rejects(
    createLocalBuilder().build({
      buildId: "abc",
      sourceZip: zip.path,
      paths: { app: "site", dist: "dist" },
      maxDurationSeconds: 60,
    }),
    (err) =>
      err instanceof DeployError && err.code === "build_failed" && /exit code 3/.test(err.message),
  );
});

Deno.test("local builder stops a build past its deadline", async () => {
  await using zip = await zipOf(denoSite("sleep 30"));
  await assert.rejects(
    createLocalBuilder({ deadlineMs: 1500 }).build({
      buildId: "abc",
      sourceZip: zip.path,
      paths: { app: "site", dist: "dist" },
      maxDurationSeconds: 1,
    }),
    (err) => err instanceof DeployError && err.code === "build_timeout",
  );
});

Deno.test("local builder fails when the build leaves no paths.dist", async () => {
  await using zip = await zipOf(denoSite("echo nothing"));
  await assert.rejects(
    createLocalBuilder().build({
      buildId: "abc",
      sourceZip: zip.path,
      paths: { app: "site", dist: "dist" },
      maxDurationSeconds: 60,
    }),
    (err) => err instanceof DeployError && err.code === "dist_missing",
  );
});

Deno.test("stripPath() reads backslashes as slashes and drops ./ and trailing slashes", () => {
  assert.equal(stripPath("site\\dist\\"), "site/dist");
  assert.equal(stripPath("./out/"), "out");
});
