import assert from "node:assert/strict";
import { type CommandRunner, readRevision } from "./revision.ts";
import { DeployError } from "../errors.ts";

function runner(answers: Record<string, { code?: number; stdout?: string }>): {
  run: CommandRunner;
  calls: string[];
} {
  const calls: string[] = [];
  const run: CommandRunner = (cmd, args) => {
    const line = `${cmd} ${args.join(" ")}`;
    calls.push(line);
    const a = answers[line] ?? { code: 1 };
    return Promise.resolve({ code: a.code ?? 0, stdout: a.stdout ?? "", stderr: "" });
  };
  return { run, calls };
}

Deno.test("readRevision() names a clean git tree by its commit", async () => {
  const { run } = runner({
    "git rev-parse --short=12 HEAD": { stdout: "3f2a1b9c8d7e\n" },
    "git status --porcelain": { stdout: "" },
  });
  const rev = await readRevision("/repo", run, false);
  assert.deepEqual(rev, { vcs: "git", commit: "3f2a1b9c8d7e", dirty: false, id: "3f2a1b9c8d7e" });
});

Deno.test("readRevision() marks a dirty git tree", async () => {
  const { run } = runner({
    "git rev-parse --short=12 HEAD": { stdout: "3f2a1b9c8d7e\n" },
    "git status --porcelain": { stdout: " M src/a.ts\n" },
  });
  assert.equal((await readRevision("/repo", run, false)).id, "3f2a1b9c8d7e-dirty");
});

Deno.test("readRevision() asks jj when the repository has .jj", async () => {
  const { run, calls } = runner({
    "jj log --no-graph -r @- -T commit_id.short(12)": { stdout: "aaaabbbbcccc" },
    "jj diff -r @ --summary": { stdout: "M a.ts\n" },
  });
  const rev = await readRevision("/repo", run, true);
  assert.equal(rev.vcs, "jj");
  assert.equal(rev.id, "aaaabbbbcccc-dirty");
  assert.ok(calls.every((c) => c.startsWith("jj ")));
});

Deno.test("readRevision() fails clearly when there is no commit", async () => {
  const { run } = runner({ "git rev-parse --short=12 HEAD": { code: 128 } });
  await assert.rejects(
    readRevision("/repo", run, false),
    (err) => err instanceof DeployError && err.code === "revision_unavailable",
  );
});
