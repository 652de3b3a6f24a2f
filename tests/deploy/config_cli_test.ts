/**
 * End to end: `deploy config` run as a site repo runs it, in a subprocess under the narrow
 * permission flags of the root deno.json `deploy` task (not -A), on fixture repos in temp directories.
 * `--config` points Deno at this workspace's import map, since the fixtures live outside it
 * (as a site repo would get it from the published package).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { deployTaskFlags, type ProcessRun, runDeployProcess } from "./deploy_process.ts";

/**
 * Runs `deploy` under the task's flags; `readScope` widens the repository read grant (`.`) for
 * runs whose cwd is below the repository root.
 */
async function deploy(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
  readScope = ".",
): Promise<ProcessRun> {
  const home = Deno.env.get("HOME") ?? "";
  const flags = (await deployTaskFlags(home)).map((f) =>
    f.startsWith("--allow-read=.,") ? f.replace("=.,", `=${readScope},`) : f
  );
  return runDeployProcess({ flags, args, cwd, env: { NO_COLOR: "1", HOME: home, ...env } });
}

async function fixture(files: Record<string, string>, marker = ".git"): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "deploy-e2e-" }));
  await Deno.mkdir(join(root, marker));
  for (const [path, text] of Object.entries(files)) {
    await Deno.mkdir(join(root, path, ".."), { recursive: true });
    await Deno.writeTextFile(join(root, path), text);
  }
  return root;
}

Deno.test("e2e: under the task's flags, --allow-run programs missing on the machine print nothing", async () => {
  const root = await fixture({ "config/production.jsonc": `{ "siteName": "blog" }` });
  // None of git, jj, deno, npm, pnpm, yarn, bun, kill is on this PATH (the CLI needs none here).
  const empty = await Deno.makeTempDir({ prefix: "deploy-path-" });
  try {
    const run = await deploy(root, ["config"], { AWS_ACCOUNT_ID: "123456789012", PATH: empty });
    assert.equal(run.code, 0, run.stderr);
    assert.doesNotMatch(run.stderr, /Failed to resolve/);
    assert.equal(run.stderr, "");
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(empty, { recursive: true });
  }
});

Deno.test("e2e: deploy config prints the resolved JSON and exits 0", async () => {
  const root = await fixture({
    "config/production.jsonc": `// production
{
  "$schema": "../node_modules/@org/deploy/config.schema.json",
  "siteName": "blog", /* slug */
  "domain": "blog.example.com",
  "microvm": { "memory": 2, "idle": { "autoResumeEnabled": true } },
  "sourceIgnore": ["tmp/"],
}`,
  });
  try {
    const run = await deploy(root, ["config"], { AWS_ACCOUNT_ID: "123456789012" });
    assert.equal(run.code, 0, run.stderr);
    const json = JSON.parse(run.stdout);
    assert.equal(json.env, "production");
    assert.equal(json.configFile, join(root, "config/production.jsonc"));
    assert.equal(json.region, "us-east-1");
    assert.deepEqual(json.microvm, {
      memory: 2,
      maxDurationSeconds: 1800,
      idle: { autoResumeEnabled: true, maxIdleDurationSeconds: 300, suspendedDurationSeconds: 120 },
    });
    assert.deepEqual(json.sourceIgnore, ["tmp/"]);
    assert.equal(json.app, "blog.example.com");
    assert.equal(json.names.bucket, "production-blog-123456789012");
    assert.equal(json.names.cdnLogGroup, "/blog/production/cloudfront");
    assert.equal(json.names.deployRole, "production-blog-gh");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("e2e: deploy config from a subdirectory of a .jj repo falls back to ops.config.jsonc", async () => {
  const root = await fixture(
    { "ops.config.jsonc": '{ "siteName": "docs" }', "src/pages/x.md": "" },
    ".jj",
  );
  try {
    const run = await deploy(join(root, "src/pages"), ["config", "staging"], {}, root);
    assert.equal(run.code, 0, run.stderr);
    const json = JSON.parse(run.stdout);
    assert.equal(json.env, "staging");
    assert.equal(json.configFile, join(root, "ops.config.jsonc"));
    assert.equal(json.accountId, null);
    assert.equal(json.names.bucket, null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("e2e: deploy config lists every problem and exits 1", async () => {
  const root = await fixture({
    "config/production.jsonc":
      '{ "siteName": "Blog!", "retention": { "cloudfrontDays": 0 }, "spaa": true }',
  });
  try {
    const run = await deploy(root, ["config"]);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /^ {2}- spaa: unknown key \(did you mean "spa"\?\)$/m);
    assert.match(run.stderr, /^ {2}- siteName: must match \^\[a-z0-9-\]\+\$/m);
    assert.match(
      run.stderr,
      /^ {2}- retention\.cloudfrontDays: must be a positive integer \(got 0\)$/m,
    );
    assert.doesNotMatch(run.stderr, /\s+at /);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("e2e: deploy config with no file lists the paths looked for; --json gives the code", async () => {
  const root = await fixture({});
  try {
    const run = await deploy(root, ["config", "qa", "--json"]);
    assert.equal(run.code, 1);
    assert.ok(run.stderr.includes(join(root, "config/qa.jsonc")));
    assert.ok(run.stderr.includes(join(root, "ops.config.jsonc")));
    assert.equal(JSON.parse(run.stdout).error.code, "config_not_found");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("e2e: a --config outside the granted read scope is refused by the sandbox", async () => {
  const root = await fixture({});
  const outside = await fixture({ "x.jsonc": '{ "siteName": "x" }' });
  try {
    const run = await deploy(root, ["config", "--config", join(outside, "x.jsonc")]);
    assert.equal(run.code, 1);
    assert.match(run.stderr, /^error: not allowed to read /m);
  } finally {
    await Deno.remove(root, { recursive: true });
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("e2e: deploy --help exits 0; an unknown flag exits 1 with a usage hint", async () => {
  const root = await fixture({});
  try {
    const help = await deploy(root, ["--help"]);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /^Usage: deploy <command>/);
    const bad = await deploy(root, ["config", "--bogus"]);
    assert.equal(bad.code, 1);
    assert.match(
      bad.stderr,
      /^error: unknown flag --bogus for `deploy config`\nhint: usage: deploy config/,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
