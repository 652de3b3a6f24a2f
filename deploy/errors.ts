/**
 * The deploy CLI's one error model: a stable machine-readable `code`, a one-line `message`
 * saying what failed, and a `hint` saying what to do. The CLI runner (`cli/run.ts`) is the
 * only place that prints one and turns it into an exit code.
 *
 * @module
 */
import type { ConfigIssue } from "@org/shared";

/**
 * Every error code the deploy CLI reports. Stable: scripts match on them (`--json` prints
 * `{"error": {"code": …}}`), so add codes but never rename one.
 */
export type DeployErrorCode =
  /** The command line itself is wrong (missing argument, too many positionals, bad value). */
  | "usage"
  /** The command word is not a deploy command. */
  | "unknown_command"
  /** A flag the command does not accept. */
  | "unknown_flag"
  /** A registered command that this version does not implement yet. */
  | "not_implemented"
  /** No configuration file exists at any candidate path. */
  | "config_not_found"
  /** The configuration file exists but cannot be read. */
  | "config_unreadable"
  /** The configuration file is not valid JSONC. */
  | "config_syntax"
  /** The configuration parsed but breaks one or more rules (all are listed in `issues`). */
  | "config_invalid"
  /** `init` would overwrite an existing configuration file. */
  | "config_exists"
  /** An interactive command was run without a terminal. */
  | "not_a_tty"
  /** The user cancelled an interactive prompt. */
  | "aborted"
  /** The Deno sandbox refused an operation (a path or variable outside the granted flags). */
  | "permission_denied"
  /** A `sourceInclude` entry is not repo-relative (leading `/` or a `..` segment). */
  | "source_include_invalid"
  /** A `sourceInclude` path does not exist at deploy time. */
  | "source_include_missing"
  /** A `sourceInclude` path exists but holds no file. */
  | "source_include_empty"
  /** The source zip handed to a builder is corrupt or has an unsafe entry name. */
  | "source_zip_invalid"
  /** The build cannot be named: no git/jj, or the repository has no commit yet. */
  | "revision_unavailable"
  /** No lockfile or package.json tells which package manager builds the site. */
  | "package_manager_unknown"
  /** The site's package manager is not installed on this machine. */
  | "package_manager_missing"
  /** The install or build step exited non-zero. */
  | "build_failed"
  /** The build ran past `microvm.maxDurationSeconds` + 60 s. */
  | "build_timeout"
  /** Ctrl-C or SIGTERM stopped the command (the build's process group is stopped too). */
  | "interrupted"
  /** Another deploy of the environment holds its lock (`locks/<env>.json`); `--force-unlock`. */
  | "deploy_locked"
  /** The configuration file is larger, or nested deeper, than a configuration can need. */
  | "config_too_large"
  /** The build (or `--no-build`) left no `paths.dist` directory. */
  | "dist_missing"
  /**
   * The build output's `_redirects` or `_headers` breaks Netlify's grammar, asks for a
   * feature this CDN does not support, breaks a rule's field rules or is too large.
   */
  | "rules_invalid"
  /**
   * The redirect or header rules do not fit CloudFront: the redirect table past the function's
   * 10 KB with no rules store (bootstrap creates it), or one rule past the store's limits.
   */
  | "rules_too_large"
  /**
   * The rules were published, but the distribution was not `Deployed` (the new rules on every
   * edge location) within the deploy's wait; nothing was uploaded.
   */
  | "rules_propagation_timeout"
  /**
   * `previews.password` names an unset variable, a missing secret or one without a string
   * value, or the password is empty.
   */
  | "preview_password_missing"
  /** The preview password is over 256 characters or holds a control character. */
  | "preview_password_invalid"
  /** `build.env` names a `${VAR}` that is not set on the deploying machine. */
  | "build_env_missing"
  /** `build.secrets` names a secret that does not exist or holds no string value. */
  | "build_secret_missing"
  /** The build output holds no file: syncing it would empty the live site. */
  | "dist_empty"
  /** The sync would delete most of the live site; `--force` allows it. */
  | "too_many_deletes"
  /** A built file changed or vanished while the deploy was uploading it. */
  | "dist_changed"
  /** `plan` was asked of the MicroVM builder, whose builds report what they published, not a plan. */
  | "plan_unsupported"
  /** No build record `builds/<id>.json` for the id given to `logs` or `rollback`. */
  | "build_not_found"
  /** The stored source `build/<id>.zip` of a build is gone, so it cannot be rebuilt. */
  | "build_source_missing"
  | "build_output_missing"
  /** The MicroVM builder cannot run: no builder image settings in the environment state. */
  | "builder_not_configured"
  /** The builder image failed to build (`CREATE_FAILED`/`UPDATE_FAILED`) or never got ready. */
  | "builder_image_failed"
  /** The MicroVM could not be launched (an API error that outlived its retries). */
  | "microvm_launch_failed"
  /** The environment state names no distribution, so nothing can be invalidated. */
  | "distribution_unknown"
  /** No AWS account id: `AWS_ACCOUNT_ID` unset and the STS look-up unavailable. */
  | "account_unknown"
  /** No usable AWS credentials (none found, expired, or rejected). */
  | "aws_credentials_missing"
  /** AWS refused an action; the message names the action and the resource. */
  | "aws_access_denied"
  /** Any other AWS failure; the message names the action, the resource and AWS's code. */
  | "aws_request_failed"
  /**
   * The AWS endpoint does not know the operation (an emulator or S3-compatible store without it:
   * unknown action, not implemented); running the command again cannot help.
   */
  | "aws_operation_unsupported"
  /** The site bucket name belongs to another AWS account. */
  | "bucket_name_taken"
  /** A custom-domain certificate is not issued yet (DNS validation pending). */
  | "certificate_pending_validation"
  /** `state/<env>.json` does not exist: the environment was never bootstrapped. */
  | "state_missing"
  /** `state/<env>.json` exists but is not a state file this version understands. */
  | "state_invalid"
  /** A destructive command was run without `--yes`. */
  | "confirmation_required"
  /** A preview id is not one lower-case DNS label (`pr-42`) of at most 63 characters. */
  | "preview_id_invalid"
  /** An AWS resource did not reach the awaited status in time. */
  | "wait_timeout"
  /** A `pds` command was run but the config has no `pds` section (or no `domain`). */
  | "pds_not_configured"
  /** The `pds.secretName` secret holds a value this version cannot use. */
  | "secret_invalid"
  /** `deploy pds login`/`init`/`sync` found no client key: `deploy pds keygen` was never run. */
  | "client_key_missing"
  /** The deployed `/oauth/client-metadata.json` or `jwks.json` is missing (not served). */
  | "client_documents_missing"
  /** A deployed client document is not JSON. */
  | "client_documents_invalid"
  /** A deployed client document differs from what the secret and config imply. */
  | "client_documents_stale"
  /** A handle, DID document, PDS or authorization server could not be resolved or trusted. */
  | "identity_unresolved"
  /** The OAuth flow failed: a refused request, a bad callback, or a token for another account. */
  | "oauth_failed"
  /** No usable session (never logged in, expired or revoked): `deploy pds login` again. */
  | "login_required"
  /** The PDS refused or failed a repository request. */
  | "pds_request_failed"
  /** Post files under `paths.content` break the frontmatter rules (all are listed). */
  | "posts_invalid"
  /** The AppView (`pds.appview`) did not answer a thread in time, or answered an error. */
  | "appview_failed"
  /** `deploy pds sync` before `deploy pds init`: no publication record is known. */
  | "publication_missing"
  /** The well-known file names a publication of another account. */
  | "publication_foreign"
  /** A command of a plugin that is not installed (`deploy analytics …` without the plugin). */
  | "plugin_not_installed"
  /** An installed plugin cannot be loaded, or its module is not a deploy plugin. */
  | "plugin_invalid"
  /** `plugin add`/`remove` names no known plugin, or one not installed. */
  | "plugin_unknown"
  /** A core command refused because a plugin still has state for the environment. */
  | "plugin_state_exists"
  /** Anything thrown that is not a `DeployError`: a bug or an unexpected environment failure. */
  | "internal";

/**
 * A code a plugin owns: declared in its section's `errorCodes` and made with
 * {@linkcode pluginErrorCodes}, so the core's list above never grows for a plugin. Scripts see
 * it as any other code.
 */
export type PluginErrorCode = string & { readonly __pluginErrorCode: true };

/**
 * A plugin's error codes, typed for {@linkcode DeployError} (the values are the codes).
 *
 * @param codes the plugin's codes by a name of its choosing
 * @returns the same codes
 *
 * @example
 * ```ts
 * const CODES = pluginErrorCodes({ portInUse: "port_in_use" });
 * new DeployError(CODES.portInUse, "port 4317 is taken");
 * ```
 */
export function pluginErrorCodes<const T extends Record<string, string>>(
  codes: T,
): { readonly [K in keyof T]: PluginErrorCode } {
  return codes as unknown as { readonly [K in keyof T]: PluginErrorCode };
}

/** Options for {@linkcode DeployError}. */
export interface DeployErrorOptions {
  /** What the user should do about it; printed on a second line. */
  hint?: string;
  /** Individual configuration problems, printed one per line under the message. */
  issues?: readonly ConfigIssue[];
  /** The underlying error, kept for `DEBUG` output only. */
  cause?: unknown;
}

/**
 * An error the deploy CLI shows its user: `code` for scripts, `message` for what failed and
 * `hint` for what to do.
 *
 * @example
 * ```ts
 * const err = new DeployError("config_not_found", "no configuration for production", {
 *   hint: "run `deploy init` to create config/production.jsonc",
 * });
 * if (err.code !== "config_not_found") throw new Error("the code is the stable part");
 * ```
 */
export class DeployError extends Error {
  override name = "DeployError";
  /** What to do about it (may be empty). */
  readonly hint: string;
  /** Configuration problems behind a `config_invalid` error (empty otherwise). */
  readonly issues: readonly ConfigIssue[];

  /**
   * @param code stable error code
   * @param message one line: what failed
   * @param options hint, config issues and cause
   */
  constructor(
    readonly code: DeployErrorCode | PluginErrorCode,
    message: string,
    options: DeployErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.hint = options.hint ?? "";
    this.issues = options.issues ?? [];
  }

  /** The error as data, as `--json` prints it. */
  toJSON(): {
    code: DeployErrorCode | PluginErrorCode;
    message: string;
    hint: string;
    issues?: ConfigIssue[];
  } {
    return {
      code: this.code,
      message: this.message,
      hint: this.hint,
      ...(this.issues.length > 0 ? { issues: [...this.issues] } : {}),
    };
  }
}

/**
 * The error of a command stopped by Ctrl-C or SIGTERM (the CLI exits 130 on it).
 *
 * @param during what was stopped, e.g. `npm run build` or `the upload`
 * @returns an `interrupted` error
 */
export function interruptedError(during: string): DeployError {
  return new DeployError("interrupted", `interrupted during ${during}`, {
    hint: "run the command again (it resumes where it stopped; paths it changed stay owed " +
      "an invalidation until a deploy finishes)",
  });
}

/**
 * The error of a plan asked of the MicroVM builder, from the plan command or from the builder
 * itself (a dry run reaching it).
 *
 * @returns a `plan_unsupported` error
 */
export function planUnsupportedError(): DeployError {
  return new DeployError(
    "plan_unsupported",
    "a MicroVM build reports what it published, not a plan, so plan builds on this machine",
    { hint: "run plan without --builder microvm (it builds locally), or with --no-build" },
  );
}

/**
 * The error a registered but not yet built command throws.
 *
 * @param command the full command as typed, e.g. `bootstrap` or `pds login`
 * @returns a `not_implemented` error
 */
export function notImplemented(command: string): DeployError {
  return new DeployError(
    "not_implemented",
    `\`deploy ${command}\` is not available in this version`,
    {
      hint: "see docs/cli.md for the commands this version supports",
    },
  );
}
