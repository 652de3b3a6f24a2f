/**
 * A second plugin needs no change to the core: installed in a site's deno.json, its own config
 * key is accepted, its section is checked with its own schema (derived defaults filled), and
 * its own error code reaches the user as any other.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../cli/run.ts";
import { captureCli } from "../cli/test_deps.ts";

const INSTALLS_GREETER = JSON.stringify({
  imports: { "@org/deploy-greeter": "jsr:@org/deploy-greeter@^0.1.0" },
});

async function run(
  config: Record<string, unknown>,
  argv: string[],
  denoJson: string | null = INSTALLS_GREETER,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "deploy-greeter-" }));
  try {
    await Deno.mkdir(join(root, ".git"));
    await Deno.mkdir(join(root, "config"));
    await Deno.writeTextFile(
      join(root, "config/staging.jsonc"),
      JSON.stringify({ siteName: "blog", ...config }),
    );
    if (denoJson !== null) await Deno.writeTextFile(join(root, "deno.json"), denoJson);
    const cli = captureCli({
      cwd: root,
      environ: { AWS_ACCOUNT_ID: "123456789012" },
      importPlugin: (key) =>
        key === "@org/deploy-greeter"
          ? import("./_fixture_second_plugin.ts")
          : Promise.reject(new Error(`no ${key} here`)),
    });
    const code = await runCli(argv, cli.deps);
    return { code, stdout: cli.stdout(), stderr: cli.stderr() };
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("second plugin: its command runs with its own section resolved, derived default filled", async () => {
  const r = await run({ greeter: { greeting: "good day" } }, ["greeter", "hello", "staging"]);
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, "good day, blog in staging\n");
});

Deno.test("second plugin: its own error code is reported like a core one", async () => {
  const r = await run({ greeter: { greeting: "no" } }, ["greeter", "hello", "staging", "--json"]);
  assert.equal(r.code, 1);
  assert.deepEqual(JSON.parse(r.stdout).error, {
    code: "greeting_refused",
    message: "the greeter will not greet",
    hint: "set greeter.greeting to something friendlier",
  });
});

Deno.test("second plugin: its schema checks its section, every problem with its key path", async () => {
  const r = await run(
    { greeter: { greeting: "HI", colour: 1 } },
    ["greeter", "hello", "staging"],
  );
  assert.equal(r.code, 1);
  assert.match(r.stderr, /invalid `greeter` section/);
  assert.match(r.stderr, /greeter\.greeting: must be lowercase letters and spaces \(got "HI"\)/);
  assert.match(r.stderr, /greeter\.colour: unknown key/);
});

Deno.test("second plugin: core commands carry its key while it is installed, and only then", async () => {
  const section = { greeting: "HI" };
  const installed = await run({ greeter: section }, ["config", "staging"]);
  assert.equal(installed.code, 0, installed.stderr);
  assert.deepEqual(JSON.parse(installed.stdout).greeter, section);
  const absent = await run({ greeter: section }, ["config", "staging"], null);
  assert.equal(absent.code, 1);
  assert.match(absent.stderr, /greeter: unknown key/);
});
