import assert from "node:assert/strict";
import {
  deployTaskCommand,
  SITE_DEPLOY_ENTRY,
  siteRunTools,
  withDeployTask,
} from "./deploy_task.ts";

Deno.test("deployTaskCommand() is exactly this workspace's deploy task for deploy/main.ts", async () => {
  const root = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assert.equal(root.tasks.deploy, deployTaskCommand("deploy/main.ts"));
});

Deno.test("deployTaskCommand() for a site runs the published package under the narrow flags", () => {
  const command = deployTaskCommand(SITE_DEPLOY_ENTRY);
  assert.match(command, /^deno run --quiet --no-prompt .* jsr:@org\/deploy$/);
  assert.doesNotMatch(command, /\s-A\s|--allow-all/);
});

Deno.test("withDeployTask() adds the task beside the site's own, keeps an existing one, leaves JSONC alone", () => {
  const added = withDeployTask('{ "tasks": { "build": "astro build" }, "lock": true }', "X");
  assert.equal(added.action, "added");
  if (added.action === "added") {
    assert.deepEqual(JSON.parse(added.text), {
      tasks: { build: "astro build", deploy: "X" },
      lock: true,
    });
  }
  assert.deepEqual(withDeployTask('{ "tasks": { "deploy": "mine" } }', "X"), { action: "kept" });
  assert.equal(withDeployTask('{ // comment\n "tasks": {} }', "X").action, "unreadable");
  assert.equal(withDeployTask("[]", "X").action, "unreadable");
});

Deno.test("siteRunTools() names the repository's VCS, its one package manager, node for one that runs on it, and kill", () => {
  assert.deepEqual(siteRunTools("git", "npm"), ["git", "npm", "node", "kill"]);
  assert.deepEqual(siteRunTools("git", "bun"), ["git", "bun", "kill"]);
  assert.deepEqual(siteRunTools("jj", "deno"), ["jj", "deno", "kill"]);
  // No lockfile yet: any package manager, so the one added later still builds.
  assert.deepEqual(siteRunTools("git", undefined), [
    "git",
    "deno",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "node",
    "kill",
  ]);
  assert.match(
    deployTaskCommand(SITE_DEPLOY_ENTRY, ["git", "npm", "kill"]),
    /--allow-run=git,npm,kill /,
  );
});
