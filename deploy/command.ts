/**
 * What a deploy command is and what it receives. A command is one entry in the command
 * table (`commands/table.ts`): a name, a summary, the flags it accepts and `run(ctx)`.
 *
 * A leaf beside `errors.ts`: it imports nothing from `cli/` or `commands/`, so the domain
 * folders that take a context (`site/`, `pipeline/`, `builders/`, `plugin/`) do not depend on
 * the CLI layer, and the runner (`cli/run.ts`) can sit on top of them.
 *
 * @module
 */
import type { Clock, ConfigIssue, Logger } from "@org/shared";
import type { DeployError } from "./errors.ts";
import type { Files } from "./config/files.ts";
import type { LoadedSite } from "./config/load.ts";
import type { PdsConfig } from "./config/pds_config.ts";
import type { Output } from "./output.ts";
import type { DeployedWait } from "./cdn/distribution_deployed.ts";

/** A flag a command accepts besides the global ones. */
export interface FlagSpec {
  /** `boolean` flags take no value; `string` flags take one (`--builder local`). */
  readonly type: "boolean" | "string";
  /** One line for help. */
  readonly description: string;
  /** For string flags: the only values accepted (`["local", "microvm"]`). */
  readonly values?: readonly string[];
  /** Placeholder shown in help (`MODE`). */
  readonly placeholder?: string;
}

/** The global flags, parsed. */
export interface GlobalFlags {
  /** `--env E` (already folded into `ctx.env`). */
  readonly env?: string;
  /** `--config PATH`. */
  readonly config?: string;
  /** `--domain D`. */
  readonly domain?: string;
  readonly json: boolean;
  readonly plain: boolean;
  readonly yes: boolean;
}

/**
 * Asks the user one question on the terminal; resolves `null` when input ends (Ctrl-D). An
 * empty answer means "take `defaultValue`" (the caller applies it).
 */
export type Prompt = (question: string, defaultValue?: string) => Promise<string | null>;

/**
 * What a command takes from its invocation. The environment, the working directory, the
 * terminal and the output streams reach commands only through here (no `Deno.env`, `Deno.cwd`,
 * `Deno.args`, standard streams or console below `main.ts`), so tests run commands in-process
 * with their own. The files, processes and temporary directories a build or sync needs are
 * used directly by the modules that do that work.
 */
export interface CommandContext {
  /** The command as dispatched, e.g. `config` or `pds login`. */
  readonly command: string;
  /** Environment: `--env`, else the positional `[env]`, else `production`. */
  readonly env: string;
  /** The command's named positionals (its `args`), e.g. `{ id: "01J…" }` for `logs <id>`. */
  readonly args: Readonly<Record<string, string>>;
  /** The command's own flags (`FlagSpec`s), parsed: `true`/string, `undefined` when absent. */
  readonly flags: Readonly<Record<string, string | boolean | undefined>>;
  /** The global flags. */
  readonly global: GlobalFlags;
  /** Working directory of the invocation. */
  readonly cwd: string;
  /** Repository root (nearest `.git`/`.jj` ancestor of `cwd`, else `cwd`). */
  readonly repoDir: string;
  /** Environment variables (only those the process may read). */
  readonly environ: Readonly<Record<string, string | undefined>>;
  /** Output writer (TTY, plain or JSON mode). */
  readonly out: Output;
  /** Structured logger (stderr; `debug` lines only with `DEBUG`). */
  readonly log: Logger;
  /** File access. */
  readonly files: Files;
  /** Whether stdin and stdout are both terminals (prompts allowed). */
  readonly interactive: boolean;
  /** Asks a question (only call when `interactive`). */
  readonly prompt: Prompt;
  /** URL of `deploy/config.schema.json`, for `"$schema"` in generated files. */
  readonly schemaUrl: string;
  /** Waits `ms` milliseconds (injected so tests of polling commands do not sleep). */
  sleep(ms: number): Promise<void>;
  /** Wall clock (timestamps, wait deadlines). */
  readonly clock: Clock;
  /**
   * Bounds of every wait for a distribution to be `Deployed` (a deploy's changed rules,
   * `destroy`), replacing each one's own; none in the CLI. The SDK's waiter sleeps by itself, so
   * tests shorten its delays here.
   */
  readonly deployedWait?: DeployedWait;
  /** HTTP for requests that are not AWS calls (the account's PDS, the site's own documents). */
  readonly fetch: typeof fetch;
  /** Aborted on Ctrl-C/SIGTERM (`main.ts`): long commands stop their work and clean up. */
  readonly signal?: AbortSignal;
  /**
   * The AWS account id: `AWS_ACCOUNT_ID`, else the injected resolver (STS), else undefined.
   * Commands open the site with `openSite` (`site/open_site.ts`), which calls this before
   * `site()` only for commands that talk to AWS, so the bucket name is known there and other
   * commands skip the look-up.
   */
  accountId(): Promise<string | undefined>;
  /**
   * The environment's configuration, loaded and validated once (memoized).
   * @throws {DeployError} config_not_found / config_unreadable / config_syntax / config_invalid
   */
  site(): Promise<LoadedSite>;
  /**
   * The `pds` section checked now (only `pds` commands call this); `null` when absent.
   * @throws {DeployError} config_invalid listing every `pds.*` issue
   */
  pds(): Promise<PdsConfig | null>;
  /**
   * A section only its own commands check (a plugin's), checked now with its resolver.
   *
   * @param key the top-level key (`analytics`)
   * @param resolve the section's resolver: every problem at once, with key paths
   * @returns the resolved section
   * @throws {DeployError} config_invalid listing every `<key>.*` issue
   */
  section<T>(key: string, resolve: SectionResolver<T>): Promise<T>;
  /**
   * The site's plugins, discovered and loaded on the first call (only plugin commands, help
   * and `plugin list` call this; built-in commands never load a plugin).
   */
  plugins(): Promise<readonly PluginListing[]>;
}

/**
 * An installed plugin as a command may list it: loaded (its namespace, summary and commands)
 * or not (why). What `plugin/discover.ts` finds satisfies it; commands see no more of a plugin.
 */
export type PluginListing =
  & {
    /** How the site's `deno.json` installs it. */
    readonly installed: { readonly name: string; readonly key: string; readonly specifier: string };
  }
  & (
    | {
      readonly plugin: {
        readonly namespace: string;
        readonly summary: string;
        readonly commands: readonly { readonly name: string; readonly summary: string }[];
      };
    }
    | { readonly error: DeployError }
  );

/** Checks a section and fills its defaults, reporting every problem with its key path. */
export type SectionResolver<T> = (
  raw: unknown,
  site: { readonly siteName: string; readonly env: string },
) => { config: T } | { errors: ConfigIssue[] };

/** One deploy command: one entry in the command table. */
export interface Command {
  /** `config`, or `<group> <sub>` for group commands (`pds login`). */
  readonly name: string;
  /** One line for the usage list. */
  readonly summary: string;
  /** Required positionals before `[env]`, by name (`["id"]` for `logs <id> [env]`). */
  readonly args?: readonly string[];
  /** Whether `[env]` may follow; default true. */
  readonly takesEnv?: boolean;
  /**
   * The one environment the command runs in (`preview` for the preview group): a positional
   * environment or `--env` is refused as a usage error. Implies `takesEnv: false`.
   */
  readonly fixedEnv?: string;
  /** Flags beyond the global ones. */
  readonly flags?: Readonly<Record<string, FlagSpec>>;
  /** Longer help shown by `deploy <command> --help`. */
  readonly help?: string;
  /** True for commands registered but not built in this version (shown as such in usage). */
  readonly planned?: boolean;
  /** Does the work; resolves to an exit code (default 0) or throws a `DeployError`. */
  run(ctx: CommandContext): Promise<number | void>;
}

/** A command group (`preview`, `pds`, a plugin's namespace): dispatches `<group> <sub>` commands. */
export interface CommandGroup {
  readonly name: string;
  readonly summary: string;
  /**
   * A plugin's group: its summary says whether the plugin is installed (and how to add it), so
   * help never calls it "not available in this version" for having no commands loaded.
   */
  readonly plugin?: true;
}

/** Every command and group the CLI knows. */
export interface CommandTable {
  readonly commands: readonly Command[];
  readonly groups: readonly CommandGroup[];
}
