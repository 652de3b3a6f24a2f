/**
 * Help texts generated from the command table, so a new command appears in help by being
 * added to the table.
 *
 * @module
 */
import { commandSynopsis, GLOBAL_FLAGS } from "./args.ts";
import type { Command, CommandGroup, CommandTable } from "../command.ts";

const NOT_AVAILABLE = " (not available in this version)";

/**
 * The top-level usage: every command and group, then the global flags.
 *
 * @param table the command table
 * @returns multi-line usage text
 */
export function usageText(table: CommandTable): string {
  const rows: [string, string][] = [];
  for (const c of table.commands) {
    if (c.name.includes(" ")) continue;
    rows.push([commandSynopsis(c, false), c.summary + (c.planned ? NOT_AVAILABLE : "")]);
  }
  for (const g of table.groups) rows.push([`${g.name} <command> …`, groupSummary(table, g)]);
  return [
    "Usage: deploy <command> [env] [--env E] [--config PATH] [--domain D] [--json] [--plain] [--yes]",
    "",
    "Commands:",
    ...columns(rows),
    "",
    "Global flags:",
    ...flagRows(),
    "",
    "Exit codes: 0 success, 1 any failure. See docs/cli.md.",
  ].join("\n");
}

/**
 * Help for one command: synopsis, summary, its own and the global flags.
 *
 * @param command the command
 * @returns multi-line help text
 */
export function commandHelp(command: Command): string {
  const own = Object.entries(command.flags ?? {}).map(([name, spec]): [string, string] => [
    spec.type === "boolean"
      ? `--${name}`
      : `--${name} ${spec.values?.join("|") ?? spec.placeholder ?? "VALUE"}`,
    spec.description,
  ]);
  return [
    `Usage: deploy ${commandSynopsis(command)}`,
    "",
    command.summary + (command.planned ? NOT_AVAILABLE : ""),
    ...(command.help ? ["", command.help] : []),
    ...(own.length > 0 ? ["", "Flags:", ...columns(own)] : []),
    "",
    "Global flags:",
    ...flagRows(),
  ].join("\n");
}

/**
 * Help for a command group: its subcommands.
 *
 * @param table the command table
 * @param group the group
 * @returns multi-line help text
 */
export function groupHelp(table: CommandTable, group: CommandGroup): string {
  const members = table.commands.filter((c) => c.name.startsWith(`${group.name} `));
  return [
    `Usage: deploy ${group.name} <command> [env] [flags]`,
    "",
    groupSummary(table, group),
    ...(members.length > 0
      ? [
        "",
        "Commands:",
        ...columns(
          members.map((c) => [commandSynopsis(c), c.summary + (c.planned ? NOT_AVAILABLE : "")]),
        ),
      ]
      : []),
  ].join("\n");
}

function groupSummary(table: CommandTable, group: CommandGroup): string {
  const any = table.commands.some((c) => c.name.startsWith(`${group.name} `) && !c.planned);
  return group.summary + (any || group.plugin ? "" : NOT_AVAILABLE);
}

function flagRows(): string[] {
  return columns(
    Object.entries(GLOBAL_FLAGS).map(([name, spec]) => [
      `${spec.short ? `-${spec.short}, ` : ""}--${name}${
        spec.type === "string" ? ` ${spec.placeholder ?? "VALUE"}` : ""
      }`,
      spec.description,
    ]),
  );
}

function columns(rows: readonly (readonly [string, string])[]): string[] {
  const width = Math.max(0, ...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`);
}
