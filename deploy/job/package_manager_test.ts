import assert from "node:assert/strict";
import { buildSteps, detectPackageManager, packageManagerFrom } from "./package_manager.ts";
import { DeployError } from "../errors.ts";
import { makeTree } from "../source/_test_tree.ts";

const pm = (...names: string[]) => packageManagerFrom(new Set(names))?.manager;

Deno.test("packageManagerFrom() reads each lockfile", () => {
  assert.equal(pm("package.json", "pnpm-lock.yaml"), "pnpm");
  assert.equal(pm("package.json", "package-lock.json"), "npm");
  assert.equal(pm("package.json", "yarn.lock"), "yarn");
  assert.equal(pm("package.json", "bun.lockb"), "bun");
  assert.equal(pm("package.json", "bun.lock"), "bun");
  assert.equal(pm("deno.json", "deno.lock"), "deno");
  assert.equal(pm("deno.json"), "deno");
  assert.equal(pm("package.json"), "npm");
  assert.equal(pm("README.md"), undefined);
});

Deno.test("packageManagerFrom() prefers a JS lockfile over a Deno config beside it", () => {
  assert.equal(pm("deno.json", "package.json", "pnpm-lock.yaml"), "pnpm");
});

Deno.test("buildSteps() installs frozen to the lockfile, then runs build", () => {
  const steps = (...names: string[]) =>
    buildSteps(packageManagerFrom(new Set(names))!, new Set(names)).map((s) =>
      [s.cmd, ...s.args].join(" ")
    );
  assert.deepEqual(steps("pnpm-lock.yaml"), ["pnpm install --frozen-lockfile", "pnpm run build"]);
  assert.deepEqual(steps("package-lock.json"), ["npm ci", "npm run build"]);
  assert.deepEqual(steps("package.json"), ["npm install", "npm run build"]);
  assert.deepEqual(steps("yarn.lock"), ["yarn install --frozen-lockfile", "yarn run build"]);
  assert.deepEqual(steps("yarn.lock", ".yarnrc.yml"), [
    "yarn install --immutable",
    "yarn run build",
  ]);
  assert.deepEqual(steps("bun.lock"), ["bun install --frozen-lockfile", "bun run build"]);
  assert.deepEqual(steps("deno.json"), ["deno install", "deno task build"]);
});

Deno.test("detectPackageManager() finds a workspace lockfile at the repo root", async () => {
  const root = await makeTree({
    "pnpm-lock.yaml": "",
    "apps/site/package.json": "{}",
  });
  try {
    const { detection } = await detectPackageManager(`${root}/apps/site`, root);
    assert.equal(detection.manager, "pnpm");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("detectPackageManager() fails clearly with no marker file", async () => {
  const root = await makeTree({ "README.md": "" });
  try {
    await assert.rejects(
      detectPackageManager(root, root),
      (err) => err instanceof DeployError && err.code === "package_manager_unknown",
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
