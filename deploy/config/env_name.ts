/**
 * The environment-name rule, checked before anything touches the file system: the name
 * becomes a path (`config/<env>.jsonc`, `state/<env>.json`) and the first part of the bucket
 * name `<env>-<siteName>-<accountId>`, so it follows the bucket-name rule.
 *
 * @module
 */
import { DeployError } from "../errors.ts";
import { MAX_BUCKET_NAME, PREVIEW_ENV } from "./names.ts";
import { SITE_NAME_PATTERN } from "./schema.ts";

/**
 * The longest environment name: what a 63-character bucket name leaves beside the shortest
 * site name (one character), two dashes and a 12-digit account id.
 */
export const MAX_ENV_NAME = MAX_BUCKET_NAME - 1 - 2 - 12;

const ENV_PATTERN = new RegExp(SITE_NAME_PATTERN.regex);

/**
 * Whether `env` may name an environment (pure): lowercase letters, digits and dashes, at most
 * {@linkcode MAX_ENV_NAME} characters. No `/`, `.` or `\`: it can never leave `config/`.
 *
 * @param env the name given
 * @returns true when valid
 */
export function isEnvName(env: string): boolean {
  return env.length > 0 && env.length <= MAX_ENV_NAME && ENV_PATTERN.test(env);
}

/**
 * Refuses an invalid environment name with a `usage` error that quotes it (shortened).
 *
 * @param env the name given (`[env]` or `--env`)
 * @throws DeployError `usage`
 */
export function assertEnvName(env: string): void {
  if (isEnvName(env)) return;
  const shown = env.length > 40 ? `${env.slice(0, 40)}…` : env;
  throw new DeployError(
    "usage",
    `environment name "${shown}" must ${SITE_NAME_PATTERN.rule}, at most ${MAX_ENV_NAME} characters`,
    { hint: "the name is part of the bucket name and of config/<env>.jsonc" },
  );
}

/**
 * Refuses an environment command on the environment `preview`: that bucket and state belong
 * to the preview stack, which the `preview` commands manage.
 *
 * @param ctx the command context
 * @param command the command's name
 * @throws {DeployError} `usage` naming the preview command to use
 */
export function refusePreviewEnv(ctx: { readonly env: string }, command: string): void {
  if (ctx.env !== PREVIEW_ENV) return;
  const instead = command === "bootstrap"
    ? "preview bootstrap"
    : command === "destroy"
    ? "preview teardown --yes"
    : command === "delete"
    ? "preview destroy <id>"
    : "preview deploy <id>";
  throw new DeployError(
    "usage",
    `the environment "${PREVIEW_ENV}" is the pull-request preview stack; \`deploy ${command} ${PREVIEW_ENV}\` does not apply to it`,
    { hint: `use \`deploy ${instead}\` (docs/previews.md)` },
  );
}

/**
 * The command that bootstraps `env`, for hints (pure): the preview stack has its own.
 *
 * @param env environment name
 * @returns `deploy bootstrap <env>`, or `deploy preview bootstrap`
 */
export function bootstrapCommandFor(env: string): string {
  return env === PREVIEW_ENV ? "deploy preview bootstrap" : `deploy bootstrap ${env}`;
}

/**
 * The command that tears `env` down, for hints (pure): the preview stack has its own, and a
 * bare `deploy destroy --yes` would be production's.
 *
 * @param env environment name
 * @returns `deploy destroy <env> --yes`, or `deploy preview teardown --yes`
 */
export function destroyCommandFor(env: string): string {
  return env === PREVIEW_ENV ? "deploy preview teardown --yes" : `deploy destroy ${env} --yes`;
}

/**
 * The command that publishes to `env`, for hints (pure): a preview is deployed by its id.
 *
 * @param env environment name
 * @returns `deploy <env>`, or `deploy preview deploy <id>`
 */
export function deployCommandFor(env: string): string {
  return env === PREVIEW_ENV ? "deploy preview deploy <id>" : `deploy ${env}`;
}

/**
 * The command that writes `env`'s configuration file, for hints (pure).
 *
 * @param env environment name
 * @returns `deploy init` for production, `deploy init <env>` otherwise
 */
export function initCommandFor(env: string): string {
  return env === "production" ? "deploy init" : `deploy init ${env}`;
}
