/**
 * The CLI runner: parses argv, builds the command context, runs the command, and is the one
 * place that prints a {@linkcode DeployError} and decides the exit code.
 *
 * @module
 */
import {
  type Clock,
  createJsonLogger,
  type Logger,
  parseJsonc,
  sleep,
  systemClock,
} from "@org/shared";
import type { Files } from "../config/files.ts";
import { type LoadedSite, loadSite } from "../config/load.ts";
import { findRepoRoot } from "../config/locate.ts";
import { assertEnvName } from "../config/env_name.ts";
import { resolvePdsConfig } from "../config/pds_config.ts";
import { DeployError } from "../errors.ts";
import { commandWords, type Invocation, MissingCommandError, parseInvocation } from "./args.ts";
import { expandShorthand } from "./shorthand.ts";
import type { CommandContext, CommandTable, Prompt } from "../command.ts";
import type { DeployedWait } from "../cdn/distribution_deployed.ts";
import { createOutput, type Output } from "../output.ts";
import { asDeployError, errorDetails } from "../error_report.ts";
import { commandHelp, groupHelp, usageText } from "./usage.ts";
import { FIRST_PARTY_PLUGINS, pluginUnavailable, withPlugins } from "../plugin/commands.ts";
import { type DiscoveredPlugin, discoverPlugins, needsPlugins } from "../plugin/discover.ts";
import { pluginHost } from "../plugin/host.ts";
import { installedPlugins } from "../plugin/site_imports.ts";
import { siteDenoJson } from "../plugin/site_deno_json.ts";

/** Everything the CLI takes from the outside world; `main.ts` supplies the real ones. */
export interface CliDeps {
  /** The command table. */
  commands: CommandTable;
  /** Working directory. */
  cwd: string;
  /** Environment variables the process may read. */
  environ: Readonly<Record<string, string | undefined>>;
  /** Writes to standard output. */
  stdout: (text: string) => void;
  /** Writes to standard error. */
  stderr: (text: string) => void;
  /** Whether standard output is a terminal (colour). */
  stdoutIsTty: boolean;
  /** Whether standard input is a terminal (prompts). */
  stdinIsTty: boolean;
  /** Asks a question on the terminal. */
  prompt: Prompt;
  /** File access. */
  files: Files;
  /** URL of `deploy/config.schema.json`. */
  schemaUrl: string;
  /**
   * Looks the account id up when `AWS_ACCOUNT_ID` is not set (`main.ts` passes STS
   * `GetCallerIdentity`). Absent: the account id stays unknown.
   */
  lookupAccountId?: () => Promise<string | undefined>;
  /** Logger; default JSON lines on `stderr`, `debug` level only with `DEBUG`. */
  log?: Logger;
  /** Waits; default a real timer. Tests pass one that returns at once. */
  sleep?: (ms: number) => Promise<void>;
  /** Clock; default the system clock. */
  clock?: Clock;
  /** Bounds of every wait for a distribution to be `Deployed`; default each wait's own. Tests shorten them. */
  deployedWait?: DeployedWait;
  /** HTTP client for non-AWS requests (the PDS); default the global `fetch`. */
  fetch?: typeof fetch;
  /**
   * Aborted on Ctrl-C/SIGTERM (`main.ts` listens for them, the reason naming the signal); the
   * command then exits 130 or 143 ({@linkcode signalExitCode}).
   */
  signal?: AbortSignal;
  /**
   * Imports an installed plugin by its import key (`main.ts`: `(key) => import(key)`, so the
   * site's import map decides the version). Absent: plugins cannot load (`plugin_invalid`).
   */
  importPlugin?: (specifier: string) => Promise<unknown>;
}

/**
 * Runs one CLI invocation in-process.
 *
 * @param argv arguments without the program name
 * @param deps the outside world
 * @returns the exit code: 0 on success (and `--help`), 1 on any error
 *
 * @example
 * ```ts
 * import type { CliDeps } from "./run.ts";
 *
 * const printConfig = (deps: CliDeps) => runCli(["config", "staging", "--json"], deps);
 * ```
 */
export async function runCli(argv: readonly string[], deps: CliDeps): Promise<number> {
  const debug = isDebug(deps.environ.DEBUG);
  const wants = (flag: string) => argv.includes(flag);
  let out = outputFor(deps, wants("--json"), wants("--plain"));
  let table = deps.commands;
  try {
    const plugins = pluginLoader(deps);
    table = await tableFor(argv, deps, plugins);
    const invocation = await parse(argv, deps, table);
    if (invocation.kind === "help") {
      const text = invocation.command
        ? commandHelp(invocation.command)
        : invocation.group
        ? groupHelp(table, invocation.group)
        : usageText(table);
      deps.stdout(text + "\n");
      return 0;
    }
    const { command, env, args, flags, global } = invocation;
    out = outputFor(deps, global.json, global.plain);
    // Before any path is built from it (config/<env>.jsonc) or the repository is searched.
    if (command.takesEnv !== false) assertEnvName(env);
    const log = deps.log ?? createJsonLogger({
      level: debug ? "debug" : "warn",
      write: (line) => deps.stderr(line + "\n"),
    });
    const repoDir = await repoRoot(deps);
    const ctx = createContext({
      deps,
      plugins,
      out,
      log,
      repoDir,
      command: command.name,
      env,
      args,
      flags,
      global,
    });
    const code = await command.run(ctx);
    return code ?? 0;
  } catch (err) {
    // Bare `deploy`: the usage text (on stderr: stdout stays clean for --json), then the error.
    if (err instanceof MissingCommandError) deps.stderr(usageText(table) + "\n\n");
    report(err, out, deps, debug);
    // 128 + the signal's number, as a shell reports a command a signal stopped.
    return err instanceof DeployError && err.code === "interrupted"
      ? signalExitCode(deps.signal?.reason)
      : 1;
  }
}

/** Parses `argv`, reading `deploy <env>` as `deploy deploy <env>` when `<env>` has a config. */
async function parse(
  argv: readonly string[],
  deps: CliDeps,
  table: CommandTable,
): Promise<Invocation> {
  try {
    return parseInvocation(argv, table);
  } catch (err) {
    if (!(err instanceof DeployError) || err.code !== "unknown_command") throw err;
    const expanded = await expandShorthand(argv, err, table, await repoRoot(deps), deps.files);
    return parseInvocation(expanded, table);
  }
}

/** Discovers the site's plugins once, on first use. */
function pluginLoader(deps: CliDeps): () => Promise<readonly DiscoveredPlugin[]> {
  let found: Promise<readonly DiscoveredPlugin[]> | undefined;
  return () =>
    found ??= repoRoot(deps).then(async (repoDir) =>
      discoverPlugins(
        (await siteDenoJson(repoDir, deps.files)).text,
        deps.importPlugin ?? ((key) => Promise.reject(new Error(`cannot import ${key} here`))),
      )
    );
}

/**
 * The command table for this invocation: the built-in one, plus the site's plugins when a
 * plugin command or the whole help is asked for. A first word that is neither a built-in
 * command nor a plugin the site installs (nor a first-party plugin) loads nothing: it is the
 * `deploy <env>` shorthand or a typo.
 */
async function tableFor(
  argv: readonly string[],
  deps: CliDeps,
  plugins: () => Promise<readonly DiscoveredPlugin[]>,
): Promise<CommandTable> {
  const { words, help } = commandWords(argv, deps.commands);
  const first = words[0];
  if (first === undefined ? !help : !needsPlugins(words, help, deps.commands)) {
    return deps.commands;
  }
  if (first !== undefined) {
    const { text } = await siteDenoJson(await repoRoot(deps), deps.files);
    const names = [
      ...installedPlugins(text === null ? {} : parseJsonc(text, "deno.json")).map((p) => p.name),
      ...FIRST_PARTY_PLUGINS.map((p) => p.name),
    ];
    if (!names.includes(first)) return deps.commands;
    const unavailable = pluginUnavailable(first, await plugins());
    if (unavailable) throw unavailable;
  }
  return withPlugins(deps.commands, await plugins(), pluginHost);
}

async function repoRoot(deps: CliDeps): Promise<string> {
  return (await findRepoRoot(deps.cwd, deps.files)) ?? deps.cwd;
}

interface ContextParts {
  deps: CliDeps;
  plugins: () => Promise<readonly DiscoveredPlugin[]>;
  out: Output;
  log: Logger;
  repoDir: string;
  command: string;
  env: string;
  args: Record<string, string>;
  flags: Record<string, string | boolean | undefined>;
  global: CommandContext["global"];
}

function createContext(p: ContextParts): CommandContext {
  const { deps, global, env, repoDir } = p;
  let account: Promise<string | undefined> | undefined;
  let site: Promise<LoadedSite> | undefined;
  const ctx: CommandContext = {
    command: p.command,
    env,
    args: p.args,
    flags: p.flags,
    global,
    cwd: deps.cwd,
    repoDir,
    environ: deps.environ,
    out: p.out,
    log: p.log,
    files: deps.files,
    interactive: deps.stdinIsTty && deps.stdoutIsTty,
    prompt: deps.prompt,
    schemaUrl: deps.schemaUrl,
    sleep: deps.sleep ?? sleep,
    clock: deps.clock ?? systemClock,
    ...(deps.deployedWait ? { deployedWait: deps.deployedWait } : {}),
    fetch: deps.fetch ?? ((input, init) => fetch(input, init)),
    ...(deps.signal ? { signal: deps.signal } : {}),
    accountId: () => account ??= resolveAccountId(deps),
    site: () =>
      // Only commands that talk to AWS pay for the STS look-up: they call accountId() first;
      // every other command sees AWS_ACCOUNT_ID or an unknown account.
      site ??= (account ?? Promise.resolve(accountFromEnv(deps))).then(async (accountId) =>
        loadSite({
          env,
          repoDir,
          cwd: deps.cwd,
          configFlag: global.config,
          domainFlag: global.domain,
          accountId,
          pluginKeys: await installedPluginNames(repoDir, deps.files),
          files: deps.files,
        })
      ),
    pds: async () => {
      const loaded = await ctx.site();
      const result = resolvePdsConfig(loaded.config.pds, loaded.config);
      if ("errors" in result) throw sectionInvalid("pds", loaded.file, result.errors);
      return result.config;
    },
    section: async (key, resolve) => {
      const loaded = await ctx.site();
      const raw = loaded.config[key];
      const result = resolve(raw, { siteName: loaded.config.siteName, env });
      if ("errors" in result) throw sectionInvalid(key, loaded.file, result.errors);
      return result.config;
    },
    plugins: () => p.plugins(),
  };
  return ctx;
}

/**
 * The names of the plugins the site's `deno.json` installs, which are their section keys: read
 * as text, no plugin loaded. A `deno.json` that does not parse installs none here (the commands
 * that load plugins report it).
 */
async function installedPluginNames(repoDir: string, files: Files): Promise<string[]> {
  const { text } = await siteDenoJson(repoDir, files);
  if (text === null) return [];
  try {
    return installedPlugins(parseJsonc(text, "deno.json")).map((p) => p.name);
  } catch {
    return [];
  }
}

async function resolveAccountId(deps: CliDeps): Promise<string | undefined> {
  return accountFromEnv(deps) ?? await deps.lookupAccountId?.();
}

function accountFromEnv(deps: CliDeps): string | undefined {
  const fromEnv = deps.environ.AWS_ACCOUNT_ID?.trim();
  if (!fromEnv) return undefined;
  if (!/^\d{12}$/.test(fromEnv)) {
    throw new DeployError("usage", `AWS_ACCOUNT_ID must be 12 digits (got "${fromEnv}")`, {
      hint: "unset it to look the account up, or set the right id",
    });
  }
  return fromEnv;
}

function sectionInvalid(
  section: string,
  file: string,
  issues: DeployError["issues"],
): DeployError {
  return new DeployError("config_invalid", `invalid \`${section}\` section in ${file}`, {
    issues,
    hint: "fix the keys listed above (docs/deploy-config.md lists every key and rule)",
  });
}

function outputFor(deps: CliDeps, json: boolean, plain: boolean): Output {
  return createOutput({
    stdout: deps.stdout,
    stderr: deps.stderr,
    isTty: deps.stdoutIsTty,
    noColor: (deps.environ.NO_COLOR ?? "") !== "",
    json,
    plain,
  });
}

/** `DEBUG` set to anything but empty, `0` or `false`. */
function isDebug(value: string | undefined): boolean {
  return value !== undefined && !["", "0", "false"].includes(value.toLowerCase());
}

/**
 * Prints an error: one line for what failed, config issues one per line, then the hint;
 * with `--json` also `{"error": {...}}` on stdout; the stack only with `DEBUG`.
 */
function report(err: unknown, out: Output, deps: CliDeps, debug: boolean): void {
  const error = asDeployError(err);
  out.error(`${out.paint.red("error:")} ${error.message}`);
  for (const line of errorDetails(error, out.paint)) out.error(line);
  if (out.mode === "json") deps.stdout(JSON.stringify({ error: error.toJSON() }, null, 2) + "\n");
  if (debug) {
    const detail = err instanceof DeployError && err.cause !== undefined ? err.cause : err;
    out.error(detail instanceof Error ? detail.stack ?? String(detail) : String(detail));
  }
}

/**
 * The exit code of a command a signal stopped: 128 + the signal's number, as a shell reports
 * it (130 for SIGINT, 143 for SIGTERM); 130 when the reason names no signal (an abort from
 * elsewhere, a test).
 *
 * @param signal the signal's name (the abort reason `main.ts` gives)
 * @returns the exit code
 */
export function signalExitCode(signal: unknown): number {
  return signal === "SIGTERM" ? 143 : 130;
}
