import assert from "node:assert/strict";
import { compilePlan, TARGETS, taskFlags } from "./compile_plan.ts";

const root = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));

Deno.test("compilePlan() builds both programs for linux x64/arm64, macOS arm64 and Windows x64", () => {
  const jobs = compilePlan(root.tasks, TARGETS, "/home/ci");
  assert.deepEqual(
    jobs.map((j) => j.output),
    [
      "dist/token-exchange-x86_64-unknown-linux-gnu",
      "dist/token-exchange-aarch64-unknown-linux-gnu",
      "dist/token-exchange-aarch64-apple-darwin",
      "dist/token-exchange-x86_64-pc-windows-msvc.exe",
      "dist/deploy-x86_64-unknown-linux-gnu",
      "dist/deploy-aarch64-unknown-linux-gnu",
      "dist/deploy-aarch64-apple-darwin",
      "dist/deploy-x86_64-pc-windows-msvc.exe",
    ],
  );
});

Deno.test("compilePlan() bakes in exactly the start task's permission flags, and no command", () => {
  const [job] = compilePlan(root.tasks, ["x86_64-unknown-linux-gnu"], "/home/ci");
  assert.deepEqual(job!.args, [
    "compile",
    "--allow-net",
    "--allow-read=.",
    "--allow-write=./data",
    "--allow-env",
    "--unstable-kv",
    "--target",
    "x86_64-unknown-linux-gnu",
    "--output",
    "dist/token-exchange-x86_64-unknown-linux-gnu",
    "server/main.ts",
  ]);
  // The same words as the task, which runs `serve`: the binary serves without it.
  assert.ok(
    root.tasks.start.includes("--allow-net --allow-read=. --allow-write=./data --allow-env"),
  );
});

Deno.test("compilePlan() bakes in the deploy task's flags with $HOME expanded", () => {
  const jobs = compilePlan(root.tasks, ["aarch64-apple-darwin"], "/Users/ci/");
  const deploy = jobs.find((j) => j.program === "deploy")!;
  const words = (root.tasks.deploy as string).split(/\s+/);
  const taskFlags = words.slice(2, words.indexOf("deploy/main.ts"))
    .map((w) => w.replaceAll("$HOME", "/Users/ci"));
  assert.deepEqual(deploy.args.slice(1, 1 + taskFlags.length), taskFlags);
  assert.ok(deploy.args.includes("--allow-read=.,/Users/ci/.aws,/Users/ci/.cache/org-deploy"));
  assert.equal(deploy.args.at(-1), "deploy/main.ts");
});

Deno.test("taskFlags() refuses a task that is not deno run, and $HOME without a home", () => {
  assert.throws(() => taskFlags("deno test -A", "/h"), /not a "deno run" task/);
  assert.throws(() => taskFlags("deno run --allow-net", "/h"), /no entry point/);
  assert.throws(
    () => taskFlags("deno run --allow-read=$HOME/.aws x.ts", undefined),
    /HOME is not set, and the task's --allow-read needs it/,
  );
});
