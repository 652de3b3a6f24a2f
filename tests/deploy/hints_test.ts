/**
 * Every command a hint names works: the CLI's hints (errors' "hint:" lines, init's "next:",
 * warnings) are collected from the situations where a new user meets them, each command in
 * backticks is run as written in the same site against the fakes, and none may be refused as
 * an unknown command or flag, or as a command that does not apply there.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { startInfraWorld } from "./infra_world.ts";

/** How a command can be refused for being the wrong command, not for the state it finds. */
const REFUSED = /unknown command|unknown flag|does not apply|not available in this version/;

/**
 * The commands in backticks of what a run advises (every line but the `error:` line, which
 * quotes what was run): `deploy …` or `deno task deploy …`.
 */
function hintedCommands(text: string): string[] {
  const advice = text.split("\n").filter((l) => !l.startsWith("error:")).join("\n");
  return [...advice.matchAll(/`(?:deno task )?(deploy [^`]+)`/g)].map((m) => m[1]!);
}

/** Turns a hinted command into argv: `<id>` becomes a real preview id, `deploy` is dropped. */
function argvOf(command: string): string[] {
  return command.replaceAll("<id>", "pr-1").split(/\s+/).slice(1);
}

Deno.test("hints: every command the preview and first-run hints name is accepted as written", async () => {
  await using world = await startInfraWorld({
    siteName: "blog",
    region: "eu-west-1",
    githubRepo: "acme/blog",
  });
  const seen = new Map<string, string>(); // command → where it was hinted
  const collect = (where: string, out: { stdout: string; stderr: string }) => {
    for (const c of hintedCommands(out.stdout + out.stderr)) if (!seen.has(c)) seen.set(c, where);
  };

  // No preview configuration yet.
  const noConfig = await world.run(["preview", "deploy", "pr-1"]);
  assert.equal(noConfig.code, 1);
  assert.match(noConfig.stderr, /deploy init preview/);
  assert.doesNotMatch(noConfig.stderr, /config\/production\.jsonc/);
  collect("preview deploy without config/preview.jsonc", noConfig);

  // init preview, as a new user answers it.
  const init = await world.run(["init", "preview"], {
    stdinIsTty: true,
    stdoutIsTty: true,
    prompt: (() => {
      const answers = ["blog", "eu-west-1", "preview.example.com", "acme/blog"];
      return () => Promise.resolve(answers.shift() ?? "");
    })(),
  });
  assert.equal(init.code, 0, init.stderr);
  collect("init preview", init);
  assert.ok(seen.has("deploy preview bootstrap"), [...seen.keys()].join("\n"));

  // The preview stack not bootstrapped yet; the environment commands on `preview`; production
  // before its bootstrap.
  for (
    const argv of [
      ["preview", "deploy", "pr-1"],
      ["bootstrap", "preview"],
      ["deploy", "preview"],
      ["status"],
      ["deploy", "--builder", "local"],
      ["history"],
    ]
  ) {
    collect(argv.join(" "), await world.run(argv));
  }
  assert.ok(seen.size >= 4, [...seen.keys()].join("\n"));

  const refused: string[] = [];
  for (const [command, where] of seen) {
    // Run as written (a bootstrap really bootstraps the fakes), with --json for the outcome.
    const run = await world.run([...argvOf(command), "--json"]);
    const text = run.stdout + run.stderr;
    const code = run.code === 0 ? "ok" : (() => {
      try {
        return JSON.parse(run.stdout).error.code as string;
      } catch {
        return "unparsed";
      }
    })();
    if (REFUSED.test(text) || code === "unknown_command" || code === "unknown_flag") {
      refused.push(`${command} (hinted by ${where}): ${text.trim().split("\n")[0]}`);
    }
  }
  assert.deepEqual(refused, []);
  await Deno.stat(join(world.root, "config", "preview.jsonc"));
});
