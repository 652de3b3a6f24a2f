import assert from "node:assert/strict";
import { COMMAND_TABLE } from "../commands/table.ts";
import { DeployError } from "../errors.ts";
import { parseInvocation } from "./args.ts";
import type { CommandTable } from "../command.ts";

function run(argv: string[], table: CommandTable = COMMAND_TABLE) {
  const inv = parseInvocation(argv, table);
  if (inv.kind !== "run") throw new Error("expected a run");
  return inv;
}

function code(argv: string[], table: CommandTable = COMMAND_TABLE): string {
  try {
    parseInvocation(argv, table);
  } catch (err) {
    if (err instanceof DeployError) return err.code;
    throw err;
  }
  return "none";
}

Deno.test("parseInvocation(): env is production by default", () => {
  assert.equal(run(["config"]).env, "production");
});

Deno.test("parseInvocation(): the positional env beats the default, --env beats the positional", () => {
  assert.equal(run(["config", "staging"]).env, "staging");
  assert.equal(run(["config", "staging", "--env", "qa"]).env, "qa");
  assert.equal(run(["--env", "qa", "config"]).env, "qa");
  assert.equal(run(["--env=qa", "config", "staging"]).env, "qa");
});

Deno.test("parseInvocation() reads the global flags", () => {
  const inv = run([
    "config",
    "--config",
    "x.jsonc",
    "--domain",
    "d.example",
    "--json",
    "--plain",
    "--yes",
  ]);
  assert.deepEqual(inv.global, {
    config: "x.jsonc",
    domain: "d.example",
    json: true,
    plain: true,
    yes: true,
  });
});

Deno.test("parseInvocation(): --help asks for help, with or without a command", () => {
  assert.deepEqual(parseInvocation(["--help"], COMMAND_TABLE), { kind: "help" });
  const inv = parseInvocation(["config", "-h"], COMMAND_TABLE);
  assert.equal(inv.kind === "help" && inv.command?.name, "config");
});

Deno.test("parseInvocation() rejects no command, unknown commands and unknown flags", () => {
  assert.equal(code([]), "usage");
  assert.equal(code(["deploi"]), "unknown_command");
  assert.equal(code(["config", "--force"]), "unknown_flag");
  // A flag another command declares is still unknown to this one.
  assert.equal(code(["config", "--refresh"]), "unknown_flag");
  assert.equal(code(["config", "staging", "extra"]), "usage");
  assert.equal(code(["config", "--env"]), "usage");
});

Deno.test("parseInvocation() suggests the closest command", () => {
  assert.throws(() => parseInvocation(["confg"], COMMAND_TABLE), (err) => {
    assert.ok(err instanceof DeployError);
    assert.match(err.hint, /did you mean `deploy config`/);
    return true;
  });
});

Deno.test("parseInvocation() gives command flags to their command and checks allowed values", () => {
  const inv = run(["deploy", "staging", "--builder", "local", "--refresh"]);
  assert.equal(inv.command.name, "deploy");
  // `force`, `force-unlock` and `no-cache` (not given here) are deploy's too
  const { force, "force-unlock": forceUnlock, "no-cache": noCache, ...given } = inv.flags;
  assert.equal(force ?? false, false);
  assert.equal(forceUnlock ?? false, false);
  assert.equal(noCache ?? false, false);
  assert.deepEqual(given, { builder: "local", refresh: true });
  assert.equal(run(["plan", "--no-build"]).flags["no-build"], true);
  for (const command of [["deploy"], ["plan"], ["preview", "deploy", "pr-1"], ["rollback", "a1"]]) {
    assert.equal(run([...command, "--no-cache"]).flags["no-cache"], true, command.join(" "));
  }
  assert.equal(code(["deploy", "--builder", "cloud"]), "usage");
});

Deno.test("parseInvocation() fills named positionals before [env]", () => {
  const inv = run(["logs", "01ABC", "staging"]);
  assert.deepEqual(inv.args, { id: "01ABC" });
  assert.equal(inv.env, "staging");
  assert.equal(code(["logs"]), "usage");
});

Deno.test("parseInvocation() dispatches group subcommands", () => {
  const table: CommandTable = {
    groups: [{ name: "pds", summary: "publishing" }],
    commands: [{ name: "pds login", summary: "log in", run: () => Promise.resolve() }],
  };
  const inv = run(["pds", "login", "staging"], table);
  assert.equal(inv.command.name, "pds login");
  assert.equal(inv.env, "staging");
  assert.equal(code(["pds", "logout"], table), "unknown_command");
  assert.equal(code(["pds"], table), "usage");
});

Deno.test("parseInvocation(): preview commands always run in the environment preview", () => {
  const inv = run(["preview", "deploy", "pr-42"]);
  assert.equal(inv.command.name, "preview deploy");
  assert.equal(inv.env, "preview");
  assert.deepEqual(inv.args, { id: "pr-42" });
  // The id may be given as --id instead of the positional.
  assert.deepEqual(run(["preview", "deploy", "--id", "pr-7", "--builder", "local"]).args, {
    id: "pr-7",
  });
  assert.equal(run(["preview", "list"]).env, "preview");
  for (
    const argv of [["preview", "deploy", "pr-1", "staging"], [
      "preview",
      "list",
      "--env",
      "production",
    ]]
  ) {
    assert.throws(() => parseInvocation(argv, COMMAND_TABLE), (err: unknown) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "usage");
      assert.match(err.message, /always uses the environment preview/);
      return true;
    });
  }
  assert.equal(code(["preview", "deploy"]), "usage");
  assert.equal(code(["preview", "launch"]), "unknown_command");
});
