/**
 * Loading a site's configuration: locate the file, parse JSONC, resolve and validate.
 *
 * @module
 */
import { ConfigError, parseJsonc } from "@org/shared";
import { DeployError } from "../errors.ts";
import type { Files } from "./files.ts";
import { configCandidates, findConfigFile } from "./locate.ts";
import { assertEnvName } from "./env_name.ts";
import { type SiteNames, siteNames } from "./names.ts";
import { resolveSiteConfig, type SiteConfig } from "./site_config.ts";

/**
 * The largest configuration file accepted, in characters (256 KiB): a real one is a few
 * kilobytes, and a bound keeps a wrong `--config` (a log, a bundle) from costing minutes.
 */
export const MAX_CONFIG_CHARS = 256 * 1024;

/** A loaded, valid site configuration and where it came from. */
export interface LoadedSite {
  /** Environment name. */
  env: string;
  /** Repository root. */
  repoDir: string;
  /** Absolute path of the configuration file used. */
  file: string;
  /** The AWS account id, when known (`AWS_ACCOUNT_ID` or a resolver). */
  accountId: string | null;
  /** The resolved configuration. */
  config: SiteConfig;
  /** Every derived resource name. */
  names: SiteNames;
}

/** What {@linkcode loadSite} needs. */
export interface LoadSiteOptions {
  env: string;
  repoDir: string;
  cwd: string;
  /** `--config PATH`. */
  configFlag?: string | undefined;
  /** `--domain D`. */
  domainFlag?: string | undefined;
  /** The account id when known. */
  accountId?: string | undefined;
  /** The installed plugins' section keys, carried unchecked (`resolveSiteConfig`'s `pluginKeys`). */
  pluginKeys?: readonly string[];
  files: Files;
}

/**
 * Locates, parses and resolves the configuration of one environment.
 *
 * @param options environment, directories, flags and file access
 * @returns the loaded site
 * @throws {DeployError} `config_not_found`, `config_unreadable`, `config_too_large` (past
 *   {@linkcode MAX_CONFIG_CHARS}, or nested deeper than 64 levels), `config_syntax` (naming
 *   file, line and column of up to 20 errors) or `config_invalid` (with every issue)
 *
 * @example
 * ```ts
 * import { denoFiles } from "./files.ts";
 *
 * async function logGroupOf(repoDir: string) {
 *   const site = await loadSite({ env: "production", repoDir, cwd: repoDir, files: denoFiles });
 *   return site.names.cdnLogGroup; // "/blog/production/cloudfront"
 * }
 * ```
 */
export async function loadSite(options: LoadSiteOptions): Promise<LoadedSite> {
  const { env, repoDir, files } = options;
  assertEnvName(env);
  const candidates = configCandidates(repoDir, env, options);
  const file = await findConfigFile(candidates, env, files, options.configFlag !== undefined);
  let text: string;
  try {
    text = await files.readTextFile(file);
  } catch (err) {
    throw new DeployError("config_unreadable", `cannot read ${file}: ${messageOf(err)}`, {
      hint: "check the file's permissions (and the --allow-read scope)",
      cause: err,
    });
  }
  if (text.length > MAX_CONFIG_CHARS) {
    throw new DeployError(
      "config_too_large",
      `${file} is ${text.length} characters; a configuration may have at most ${MAX_CONFIG_CHARS}`,
      { hint: "check that --config names the site's configuration file" },
    );
  }
  let raw: unknown;
  try {
    raw = parseJsonc(text, file);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const [first, ...rest] = err.issues;
    const deep = /nested deeper than/.test(first?.message ?? "");
    throw new DeployError(
      deep ? "config_too_large" : "config_syntax",
      `invalid JSONC: ${first?.message ?? file}`,
      {
        issues: rest,
        hint: rest.length > 0
          ? "more syntax errors are listed above; fix the first and run again"
          : "fix the syntax at that position and run again",
        cause: err,
      },
    );
  }
  const accountId = options.accountId ?? undefined;
  const result = resolveSiteConfig(raw, {
    env,
    repoDir,
    ...(accountId !== undefined ? { accountId } : {}),
    ...(options.domainFlag !== undefined ? { domainFlag: options.domainFlag } : {}),
    ...(options.pluginKeys ? { pluginKeys: options.pluginKeys } : {}),
  });
  if ("errors" in result) {
    throw new DeployError("config_invalid", `invalid configuration in ${file}`, {
      issues: result.errors,
      hint: "fix the keys listed above (docs/deploy-config.md lists every key and rule)",
    });
  }
  return {
    env,
    repoDir,
    file,
    accountId: accountId ?? null,
    config: result.config,
    names: siteNames(result.config, env, accountId),
  };
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
