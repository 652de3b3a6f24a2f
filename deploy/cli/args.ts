/**
 * Turning argv into a command, its positionals and flags (pure, no I/O).
 *
 * @module
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { DeployError } from "../errors.ts";
import { suggest } from "../config/suggest.ts";
import type { Command, CommandGroup, CommandTable, FlagSpec, GlobalFlags } from "../command.ts";

/** The flags every command accepts. */
export const GLOBAL_FLAGS: Readonly<Record<string, FlagSpec & { short?: string }>> = {
  env: {
    type: "string",
    placeholder: "E",
    description: "environment (beats the positional [env]; default production)",
  },
  config: { type: "string", placeholder: "PATH", description: "use this configuration file only" },
  domain: {
    type: "string",
    placeholder: "D",
    description: "custom domain (beats the `domain` key)",
  },
  json: { type: "boolean", description: "machine-readable JSON output" },
  plain: { type: "boolean", description: "no colour, no progress animation" },
  yes: { type: "boolean", description: "confirm destructive actions without asking" },
  help: { type: "boolean", short: "h", description: "show help and exit" },
};

/**
 * No command word at all (`deploy`, `deploy --json`): a `usage` error after which the runner
 * prints the whole usage text, since the user has not picked anything yet.
 */
export class MissingCommandError extends DeployError {
  override name = "MissingCommandError";

  constructor() {
    super("usage", "no command given", {
      hint: "run `deploy --help` for the list of commands",
    });
  }
}

/** The result of parsing a command line. */
export type Invocation =
  | { kind: "help"; command?: Command; group?: CommandGroup }
  | {
    kind: "run";
    command: Command;
    env: string;
    args: Record<string, string>;
    flags: Record<string, string | boolean | undefined>;
    global: GlobalFlags;
  };

type Options = NonNullable<ParseArgsConfig["options"]>;

/**
 * Parses `argv` against the command table: finds the command (one word, or a group and its
 * subcommand), then parses the global flags plus that command's own strictly.
 *
 * @param argv arguments without the program name
 * @param table the command table
 * @returns what to run, or a request for help
 * @throws {DeployError} `usage` ({@linkcode MissingCommandError} when there is no command),
 *   `unknown_command`, `unknown_flag` or `not_implemented`
 */
export function parseInvocation(argv: readonly string[], table: CommandTable): Invocation {
  const loose = looseParse(argv, table);
  const words = loose.positionals;
  const [first, second] = words;
  const helpAsked = loose.values.help === true;
  if (first === undefined) {
    if (helpAsked) return { kind: "help" };
    throw new MissingCommandError();
  }
  const group = table.groups.find((g) => g.name === first);
  let command: Command | undefined;
  let used = 1;
  if (group) {
    const members = table.commands.filter((c) => c.name.startsWith(`${group.name} `));
    if (second === undefined) {
      if (helpAsked) return { kind: "help", group };
      throw new DeployError("usage", `\`deploy ${group.name}\` needs a subcommand`, {
        hint: `run \`deploy ${group.name} --help\``,
      });
    }
    command = members.find((c) => c.name === `${group.name} ${second}`);
    if (!command) {
      if (members.length === 0) {
        throw new DeployError(
          "not_implemented",
          `\`deploy ${group.name} ${second}\` is not available in this version`,
          {
            hint: "see docs/cli.md for the commands this version supports",
          },
        );
      }
      throw unknownCommand(
        `${group.name} ${second}`,
        members.map((c) => c.name.split(" ")[1]!),
        second,
      );
    }
    used = 2;
  } else {
    command = table.commands.find((c) => c.name === first);
    if (!command) {
      throw unknownCommand(first, [
        ...table.commands.map((c) => c.name),
        ...table.groups.map((g) => g.name),
      ], first);
    }
  }
  if (helpAsked) return { kind: "help", command };

  // Second pass, strict: the global flags plus this command's own.
  const own = command.flags ?? {};
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: toOptions({ ...GLOBAL_FLAGS, ...own }),
      strict: true,
      allowPositionals: true,
    });
  } catch (err) {
    throw flagError(err, command);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  const rest = parsed.positionals.slice(used);
  const names = command.args ?? [];
  const args: Record<string, string> = {};
  for (const name of names) {
    // `--<name> V` stands for the positional when the command declares that flag (`--id`).
    const flagged = own[name]?.type === "string" ? values[name] : undefined;
    const value = typeof flagged === "string" ? flagged : rest.shift();
    if (value === undefined) {
      throw new DeployError("usage", `\`deploy ${command.name}\` needs <${name}>`, {
        hint: `usage: deploy ${commandSynopsis(command)}`,
      });
    }
    args[name] = value;
  }
  const positionalEnv = command.takesEnv === false ? undefined : rest.shift();
  if (command.fixedEnv !== undefined) {
    const other = values.env ?? rest[0];
    if (other !== undefined) {
      throw new DeployError(
        "usage",
        `\`deploy ${command.name}\` always uses the environment ${command.fixedEnv}; ` +
          `it takes no ${values.env !== undefined ? "--env" : `environment ("${rest[0]}")`}`,
        { hint: `usage: deploy ${commandSynopsis(command)}` },
      );
    }
  }
  if (rest.length > 0) {
    throw new DeployError("usage", `unexpected argument "${rest[0]}"`, {
      hint: `usage: deploy ${commandSynopsis(command)}`,
    });
  }
  const flags: Record<string, string | boolean | undefined> = {};
  for (const [name, spec] of Object.entries(own)) {
    const value = values[name];
    if (spec.values && typeof value === "string" && !spec.values.includes(value)) {
      throw new DeployError(
        "usage",
        `--${name} must be one of ${spec.values.join(", ")} (got "${value}")`,
        {
          hint: `usage: deploy ${commandSynopsis(command)}`,
        },
      );
    }
    flags[name] = value;
  }
  const str = (name: string): string | undefined => {
    const v = values[name];
    return typeof v === "string" ? v : undefined;
  };
  const global: GlobalFlags = {
    ...(str("env") !== undefined ? { env: str("env")! } : {}),
    ...(str("config") !== undefined ? { config: str("config")! } : {}),
    ...(str("domain") !== undefined ? { domain: str("domain")! } : {}),
    json: values.json === true,
    plain: values.plain === true,
    yes: values.yes === true,
  };
  return {
    kind: "run",
    command,
    env: command.fixedEnv ?? global.env ?? positionalEnv ?? "production",
    args,
    flags,
    global,
  };
}

/**
 * The synopsis of a command: `logs <id> [env] [--builder MODE]`.
 *
 * @param command the command
 * @param withFlags include the command's own flags (default true)
 * @returns the synopsis without the program name
 */
export function commandSynopsis(command: Command, withFlags = true): string {
  const parts = [command.name, ...(command.args ?? []).map((a) => `<${a}>`)];
  if (command.takesEnv !== false) parts.push("[env]");
  for (const [name, spec] of Object.entries(withFlags ? command.flags ?? {} : {})) {
    parts.push(
      spec.type === "boolean"
        ? `[--${name}]`
        : `[--${name} ${spec.values?.join("|") ?? spec.placeholder ?? "VALUE"}]`,
    );
  }
  return parts.join(" ");
}

/**
 * The first pass, lenient: only to find the command words, knowing which flags take values so
 * `--env staging config` is not read as the command "staging".
 */
function looseParse(argv: readonly string[], table: CommandTable) {
  const all: Record<string, FlagSpec> = { ...GLOBAL_FLAGS };
  for (const c of table.commands) Object.assign(all, c.flags ?? {});
  return parseArgs({
    args: [...argv],
    options: toOptions(all),
    strict: false,
    allowPositionals: true,
  });
}

/**
 * The positional words of an invocation and whether help is asked (pure), before any command is
 * chosen: what decides whether plugins are loaded.
 *
 * @param argv arguments without the program name
 * @param table the command table (for which flags take values)
 * @returns the words in order, and `--help`/`-h`
 */
export function commandWords(
  argv: readonly string[],
  table: CommandTable,
): { words: string[]; help: boolean } {
  const loose = looseParse(argv, table);
  return { words: [...loose.positionals], help: loose.values.help === true };
}

/**
 * The first word of an invocation when it is neither a command nor a group (pure): the
 * candidate environment of the shorthand `deploy <env>` for `deploy deploy <env>`.
 *
 * @param argv arguments without the program name
 * @param table the command table
 * @returns the word, or undefined when the invocation names a command, a group or nothing
 */
export function nonCommandWord(argv: readonly string[], table: CommandTable): string | undefined {
  const first = looseParse(argv, table).positionals[0];
  if (first === undefined) return undefined;
  const known = [...table.commands.map((c) => c.name), ...table.groups.map((g) => g.name)];
  return known.includes(first) ? undefined : first;
}

function toOptions(flags: Readonly<Record<string, FlagSpec & { short?: string }>>): Options {
  const options: Options = {};
  for (const [name, spec] of Object.entries(flags)) {
    options[name] = spec.short ? { type: spec.type, short: spec.short } : { type: spec.type };
  }
  return options;
}

function unknownCommand(word: string, known: readonly string[], typed: string): DeployError {
  const guess = suggest(typed, known);
  return new DeployError("unknown_command", `unknown command "${word}"`, {
    hint: guess
      ? `did you mean \`deploy ${word.replace(typed, guess)}\`? (run \`deploy --help\`)`
      : "run `deploy --help` for the list of commands",
  });
}

function flagError(err: unknown, command: Command): DeployError {
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  const hint = `usage: deploy ${commandSynopsis(command)} (run \`deploy ${command.name} --help\`)`;
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION") {
    const flag = /'([^']+)'/.exec(message)?.[1] ?? message;
    return new DeployError("unknown_flag", `unknown flag ${flag} for \`deploy ${command.name}\``, {
      hint,
    });
  }
  // Missing value (`--env` at the end) or a value given to a boolean flag (`--json=x`).
  return new DeployError("usage", message.split("\n")[0] ?? message, { hint, cause: err });
}
