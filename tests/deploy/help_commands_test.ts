/**
 * Every `deploy …` command that a help text names exists: the usage, each command's and each
 * group's help (the analytics plugin's included) are scanned for commands in backticks, and each
 * must parse against the command table as written (placeholders filled in).
 */
import assert from "node:assert/strict";
import analytics from "../../analytics/mod.ts";
import { parseInvocation } from "../../deploy/cli/args.ts";
import { commandHelp, groupHelp, usageText } from "../../deploy/cli/usage.ts";
import { COMMAND_TABLE } from "../../deploy/commands/table.ts";
import { DeployError } from "../../deploy/errors.ts";
import type { PluginHost } from "../../deploy/plugin/contract.ts";
import { withPlugins } from "../../deploy/plugin/commands.ts";

/** Placeholders of help texts, as a user would fill them in. */
function filled(command: string): string[] {
  // `deploy <env>` is the shorthand for `deploy deploy <env>` (cli/shorthand.ts, which needs the
  // environment's configuration file): the command it stands for is the one to check.
  if (command === "deploy <env>") return ["deploy", "staging"];
  return command
    .replaceAll("<id>", "pr-42")
    .replaceAll("<env>", "staging")
    .replaceAll("<name>", "analytics")
    .replace(/\[[^\]]*\]/g, "")
    .replace(/\s…$/, "")
    .trim()
    .split(/\s+/)
    .slice(1);
}

Deno.test("help: every deploy command a help text names parses as written", () => {
  const table = withPlugins(COMMAND_TABLE, [{
    installed: { name: "analytics", key: "@org/deploy-analytics", specifier: "jsr:x" },
    plugin: analytics,
  }], () => ({}) as PluginHost);
  const texts = [
    usageText(table),
    ...table.commands.map((c) => commandHelp(c)),
    ...table.groups.map((g) => groupHelp(table, g)),
  ];
  const commands = new Set(
    texts.flatMap((t) => [...t.matchAll(/`(?:deno task )?(deploy [^`]+)`/g)].map((m) => m[1]!)),
  );
  assert.ok(commands.size >= 4, `only ${[...commands].join(", ")} found in the help texts`);
  const refused: string[] = [];
  for (const command of commands) {
    try {
      parseInvocation(filled(command), table);
    } catch (err) {
      if (!(err instanceof DeployError) || err.code !== "usage") {
        refused.push(`${command}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  assert.deepEqual(refused, []);
});
