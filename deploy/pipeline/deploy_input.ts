/**
 * What `plan`, `deploy`, `rollback` and `preview deploy` share: turning the command context
 * (config, `--domain`, flags) and the environment state written by `bootstrap` into the
 * pipeline's {@linkcode DeployInput}.
 *
 * @module
 */
import { bootstrapCommandFor } from "../config/env_name.ts";
import type { BuilderKind } from "../config/site_config.ts";
import type { CommandContext } from "../command.ts";
import { createBuilder, type MicrovmSeams } from "../builders/create_builder.ts";
import type { LoadedSite } from "../config/load.ts";
import type { OutputManifest } from "../build_records/output.ts";
import { DeployError } from "../errors.ts";
import { DEPLOY_STAGES, type DeployInput, type DeployProgress } from "./deploy.ts";
import { servingOrigin, siteOrigin } from "../seo/policy.ts";
import { openSite } from "../site/open_site.ts";
import { denoCommandRunner } from "../source/revision.ts";
import {
  keptFilesKey,
  liveBuildKey,
  lockKey,
  owedInvalidationKey,
  SITE_PREFIX,
} from "../state/bucket_layout.ts";
import { progressBar } from "./report.ts";
import { refusePreviewEnv } from "../config/env_name.ts";
import type { RoutingTarget } from "../routing/publish_routing.ts";
import type { EnvState } from "../state/env_state.ts";
import type { SiteConfig } from "../config/site_config.ts";
import {
  resourceTags,
  siteHeadersFunctionName,
  siteHeadersPolicyName,
  siteRewriteFunctionName,
} from "../config/names.ts";
import { removeStaleWorkDirs } from "../job/work_dir.ts";
import { resolveBuildEnv } from "../build_settings/build_env.ts";

/**
 * Where a deploy publishes when it is not the environment's live site (one preview of the
 * preview stack): its prefix, object tags, origin and lock. Such a deploy invalidates nothing,
 * so it owes nothing.
 */
export interface AsideTarget {
  /** The key prefix, e.g. `previews/<id>/site/`. */
  readonly prefix: string;
  /** Object tags of its files. */
  readonly tags: Readonly<Record<string, string>>;
  /** Its public origin (the sitemap's). */
  readonly origin: string;
  /** Its deploy lock's key. */
  readonly lockKey: string;
}

/** A resolved deploy: the pipeline input plus what the command prints and releases. */
export interface SiteDeploy extends Disposable {
  /** The pipeline input. */
  readonly input: DeployInput;
  /** `local`, `microvm`, or `none` with `--no-build`. */
  readonly builderName: string;
}

/**
 * The directory under `$HOME` where the CLI unpacks and builds (the deploy task grants reads
 * and writes there); undefined without `HOME`, leaving the system temp dir.
 *
 * @param environ the environment the CLI may read
 * @returns the temp root or undefined
 */
export function deployTempRoot(
  environ: Readonly<Record<string, string | undefined>>,
): string | undefined {
  const home = environ.HOME || environ.USERPROFILE;
  return home ? `${home.replace(/[\\/]+$/, "")}/.cache/org-deploy` : undefined;
}

/**
 * The `--builder` flag as a builder, or undefined when not given (the config decides).
 *
 * @param flag the flag's value (the command's flag spec allows only `local` and `microvm`)
 * @returns the builder the flag names
 */
export function builderFlag(flag: unknown): BuilderKind | undefined {
  return flag === "local" || flag === "microvm" ? flag : undefined;
}

/** What kind of deploy {@linkcode openSiteDeploy} resolves. */
export interface SiteDeployOptions {
  /**
   * Where the job runs: `local` or `microvm` (`--no-build` always syncs locally); absent: the
   * configuration's `build.builder`.
   */
  readonly builder?: BuilderKind | undefined;
  /** MicroVM builder overrides for tests; none in the CLI. */
  readonly seams?: MicrovmSeams;
  /**
   * Where to publish instead of the live site (`preview deploy <id>`: under
   * `previews/<id>/site/`, tagged `environment=preview-<id>`, SEO non-production on the
   * preview's URL, no invalidation), resolved from the opened site.
   */
  readonly aside?: (site: { readonly site: LoadedSite }) => AsideTarget;
  /**
   * Rebuild this stored build (`build/<id>.zip`) instead of the working tree (`rollback`):
   * deliberate, so it may delete what later builds added (an empty output is still refused).
   */
  readonly storedBuild?: string;
  /**
   * Restore this kept build output server-side instead (`rollback` within
   * `retention.buildsDays`): no builder runs, so none needs configuring.
   */
  readonly storedOutput?: OutputManifest;
}

/**
 * Resolves config, state and flags into a pipeline input.
 *
 * @param ctx the command context
 * @param options the builder, and what is published where
 * @returns the input and a disposer for its clients
 * @throws {DeployError} `account_unknown`, config errors, `state_missing`,
 *   `distribution_unknown`, `builder_not_configured`
 */
export async function openSiteDeploy(
  ctx: CommandContext,
  options: SiteDeployOptions,
): Promise<SiteDeploy> {
  const { aside, storedOutput } = options;
  const storedBuild = options.storedBuild ?? storedOutput?.id;
  if (aside === undefined) refusePreviewEnv(ctx, storedBuild === undefined ? "deploy" : "rollback");
  const site = await openSite(ctx, { aws: true });
  const { bucket, clients } = site;
  const release = () => site[Symbol.dispose]();
  try {
    const state = await site.requireState();
    const target = aside?.(site);
    if (!target && !state.distributionId) {
      throw new DeployError("distribution_unknown", `state/${ctx.env}.json names no distribution`, {
        hint: `run \`${bootstrapCommandFor(ctx.env)}\` to finish creating the environment`,
      });
    }
    const config = site.config;
    if (target && config.redirects.length + config.headers.length > 0) {
      ctx.out.warn("the config's redirect/header rules are not applied to previews");
    }
    const origin = target?.origin ?? siteOrigin(config.domain, state.distributionDomain);
    const isProduction = !target && ctx.env === "production";
    const tags = target?.tags ?? { ...site.names.tags } as Record<string, string>;
    const noBuild = ctx.flags["no-build"] === true;
    const tempRoot = deployTempRoot(ctx.environ);
    if (tempRoot) {
      await ctx.files.mkdir(tempRoot);
      // What runs killed before they could clean up left behind (their owner lock is free).
      await removeStaleWorkDirs(tempRoot);
    }
    // A restore copies inside the bucket from this process: the local builder's sync, no build.
    const builderName = noBuild || storedOutput ? "local" : options.builder ?? config.build.builder;
    const routing = target ? undefined : routingTarget(ctx.env, bucket, config, state);
    const builder = createBuilder(ctx, site, state, builderName, {
      seams: options.seams ?? {},
      ...(tempRoot ? { tempRoot } : {}),
      // A stored build is rebuilt in the MicroVM only.
      ...(storedBuild === undefined ? { alternative: "or deploy with --builder local" } : {}),
    });
    const input: DeployInput = {
      repoRoot: ctx.repoDir,
      env: ctx.env,
      isProduction,
      source: storedOutput
        ? { storedOutput }
        : storedBuild === undefined
        ? { sourceIgnore: config.sourceIgnore, sourceInclude: config.sourceInclude }
        : { storedBuild },
      paths: { app: config.paths.app, dist: config.paths.dist },
      maxDurationSeconds: config.microvm.maxDurationSeconds,
      bucket,
      prefix: target?.prefix ?? SITE_PREFIX,
      ...(target ? {} : { distributionId: state.distributionId! }),
      tags,
      seo: config.seo,
      origin,
      url: target?.origin ??
        servingOrigin(config.domain, state.distributionDomain, state.aliasAttached),
      invalidationMaxPaths: config.invalidationMaxPaths,
      defaultRootObject: config.defaultRootObject,
      builder,
      noBuild,
      refresh: ctx.flags.refresh === true,
      force: storedBuild !== undefined || ctx.flags.force === true,
      clients: { s3: clients.s3, cloudfront: clients.cloudfront },
      runCommand: denoCommandRunner,
      logger: ctx.log,
      onProgress: progressReporter(ctx),
      // The build's own output goes to the terminal as it comes (stderr with --json).
      onBuildOutput: (line) => ctx.out.line(line),
      clock: ctx.clock,
      sleep: ctx.sleep,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      ...(tempRoot ? { tempRoot } : {}),
      // Previews lock one another only per preview id; an environment locks as a whole.
      lock: {
        key: target?.lockKey ?? lockKey(ctx.env),
        holder: lockHolder(ctx),
        waitMs: LOCK_WAIT_MS,
        ...lockOptions(ctx, target === undefined),
      },
      ...(target ? {} : { owedKey: owedInvalidationKey(ctx.env), liveKey: liveBuildKey(ctx.env) }),
      // A preview follows each build at once: it is short-lived, and its CDN does not cache.
      ...(target ? {} : {
        retention: {
          key: keptFilesKey(ctx.env),
          previousDays: config.retention.previousDays,
        },
      }),
      ...(routing ? { routing } : {}),
      ...buildSettings(ctx, config, tags, !noBuild && storedOutput === undefined),
      // Only the live site's builds can be rolled back to; a restore is kept already.
      ...(target || storedOutput ? {} : { keepOutputDays: config.retention.buildsDays }),
    };
    return {
      input,
      builderName: noBuild || storedOutput ? "none" : builderName,
      [Symbol.dispose]: release,
    };
  } catch (err) {
    release();
    throw err;
  }
}

/**
 * Where the live site's rules go (pure): the functions and policy named after the environment,
 * the distribution and the rules store bootstrap recorded, and the config's rules.
 *
 * @param env the environment
 * @param bucket the site bucket
 * @param config the resolved config
 * @param state the environment state
 * @returns the routing target
 */
export function routingTarget(
  env: string,
  bucket: string,
  config: SiteConfig,
  state: EnvState,
): RoutingTarget {
  const store = state.nodes.rulesStore?.outputs;
  return {
    rewriteFunction: siteRewriteFunctionName(env, config.siteName),
    bucket,
    headersFunction: siteHeadersFunctionName(env, config.siteName),
    headersPolicy: siteHeadersPolicyName(env, config.siteName),
    distributionId: state.distributionId!,
    indexDocument: config.defaultRootObject,
    spa: config.spa,
    ...(typeof store?.arn === "string" && typeof store.name === "string"
      ? { store: { name: store.name, arn: store.arn } }
      : {}),
    configRules: { redirects: config.redirects, headers: config.headers },
    tags: { ...resourceTags(config.app, env) },
  };
}

/** How long a deploy waits for another deploy of the environment before refusing. */
export const LOCK_WAIT_MS = 60_000;

/**
 * The command's `--force-unlock` and the command line its refusal's hint names: every
 * command that takes the deploy lock passes these (pure).
 *
 * @param ctx the command context
 * @param takesEnv whether the command takes an environment (not the preview commands)
 * @returns `forceUnlock` when given, and `rerun`
 */
export function lockOptions(
  ctx: CommandContext,
  takesEnv: boolean,
): { forceUnlock?: true; rerun: string } {
  return {
    ...(ctx.flags["force-unlock"] === true ? { forceUnlock: true } : {}),
    rerun: forceUnlockRerun(ctx, takesEnv),
  };
}

/**
 * This command line again with `--force-unlock` (pure): the command, its positionals, the
 * environment, its flags and the global `--config`, `--domain` and `--yes` as given.
 *
 * @param ctx the command context
 * @param takesEnv whether to name the environment (`--env`)
 * @returns e.g. `deploy rollback 01J… --env production --force-unlock`
 */
export function forceUnlockRerun(ctx: CommandContext, takesEnv: boolean): string {
  const quote = (v: string) => /^[\w@%+=:,./-]+$/.test(v) ? v : `'${v.replace(/'/g, `'\\''`)}'`;
  const parts = ["deploy", ctx.command, ...Object.values(ctx.args).map(quote)];
  if (takesEnv) parts.push("--env", quote(ctx.env));
  for (const [name, value] of Object.entries(ctx.flags)) {
    if (name === "force-unlock" || Object.hasOwn(ctx.args, name) || value === undefined) continue;
    if (value === true) parts.push(`--${name}`);
    else if (typeof value === "string") parts.push(`--${name}`, quote(value));
  }
  if (ctx.global.config !== undefined) parts.push("--config", quote(ctx.global.config));
  if (ctx.global.domain !== undefined) parts.push("--domain", quote(ctx.global.domain));
  if (ctx.global.yes) parts.push("--yes");
  return [...parts, "--force-unlock"].join(" ");
}

/**
 * Who a deploy is, as its lock names it to a deploy that waits: the command, the user and host
 * when the process may read them, the pid and the working directory.
 *
 * @param ctx the command context
 * @returns one line, e.g. `deploy production by ana@laptop (pid 4242, /src/blog)`
 */
export function lockHolder(ctx: CommandContext): string {
  let host = "";
  try {
    host = Deno.hostname();
  } catch {
    // --allow-sys without hostname: the pid and directory still tell runs apart.
  }
  const user = ctx.environ.USER ?? ctx.environ.USERNAME ?? "";
  const who = user || host ? ` by ${user}${user && host ? "@" : ""}${host}` : "";
  return `${ctx.command} ${ctx.env}${who} (pid ${Deno.pid}, ${ctx.repoDir})`;
}

/** Stage lines everywhere but `--json`; the upload bar only on a colour terminal. */
function progressReporter(ctx: CommandContext): (event: DeployProgress) => void {
  let barShown = false;
  return (event) => {
    if (event.kind === "stage") {
      if (barShown) {
        ctx.out.progress("");
        barShown = false;
      }
      const stage = DEPLOY_STAGES[event.stage];
      ctx.out.step(event.plan ? stage.planStep ?? stage.step : stage.step);
      return;
    }
    if (!ctx.out.color) return;
    ctx.out.progress(progressBar(event));
    barShown = true;
  };
}

/**
 * The job's build-time settings (none when nothing is built): the cache scope, unless
 * `--no-cache` (the framework caches are kept per site and branch: a deploy builds its
 * environment's branch, a preview its own), `build.env` filled from this machine's environment,
 * and `build.secrets`' names.
 *
 * @throws {DeployError} `build_env_missing`
 */
function buildSettings(
  ctx: CommandContext,
  config: SiteConfig,
  tags: Readonly<Record<string, string>>,
  builds: boolean,
): Pick<DeployInput, "cache" | "buildEnv" | "buildSecrets"> {
  if (!builds) return {};
  const env = resolveBuildEnv(config.build.env, ctx.environ);
  return {
    ...(ctx.flags["no-cache"] === true
      ? {}
      : { cache: { site: config.siteName, branch: tags.environment ?? ctx.env } }),
    ...(Object.keys(env).length > 0 ? { buildEnv: env } : {}),
    ...(config.build.secrets && Object.keys(config.build.secrets).length > 0
      ? { buildSecrets: config.build.secrets }
      : {}),
  };
}
