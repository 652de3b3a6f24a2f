/**
 * The one way a command opens the site: {@linkcode openSite} returns the loaded and resolved
 * configuration, the derived names, and, when the command talks to AWS, the account id, one set
 * of AWS clients and the environment's state (read once, with the one parser). What a command
 * does not ask for is not loaded: `config` and `init` make no STS call, and only the commands
 * that need `state/<env>.json` read it.
 *
 * @module
 */
import type { CommandContext } from "../cli/command.ts";
import type { LoadedSite } from "../config/load.ts";
import { normalizeDomain, PREVIEW_ENV, type SiteNames } from "../config/names.ts";
import type { SiteConfig } from "../config/site_config.ts";
import { DeployError } from "../errors.ts";
import { type AwsClients, createAwsClients } from "../aws/clients.ts";
import { BUILDER_BASE_IMAGE_ENV } from "../infra/nodes/builder_base_image.ts";
import type { GraphRun } from "../infra/reconcile.ts";
import type { SiteFacts } from "../infra/resource.ts";
import { stateKey } from "../state/bucket_layout.ts";
import { type EnvState, type EnvStateView, readEnvState } from "../state/env_state.ts";

/**
 * How a command wants `state/<env>.json`:
 *
 * - `required`: a full version-1 state; `state_missing` when the environment was never
 *   bootstrapped (`deploy`, `plan`, `delete`);
 * - `optional`: the state or `null` (`bootstrap`, which creates it);
 * - `report`: like `optional`, but an unreadable state is `null` with the reason in
 *   `stateError` instead of an error (`status`, `destroy`, which must work around it);
 * - `lenient`: only the fields the publishing commands read, from any JSON object; `{}` when
 *   absent (`rollback`).
 */
export type StateNeed = "required" | "optional" | "report" | "lenient";

/** What a command needs besides the configuration. */
export interface SiteNeeds {
  /** The account id (STS unless `AWS_ACCOUNT_ID`), the bucket name and the AWS clients. */
  readonly aws?: boolean;
  /** The environment state (implies `aws`). */
  readonly state?: StateNeed;
}

/** The configuration part of an opened site: what every command gets. */
export interface SiteBasics {
  /** The loaded site (config file path, repository, env). */
  readonly site: LoadedSite;
  /** Environment name. */
  readonly env: string;
  /** The resolved configuration. */
  readonly config: SiteConfig;
  /** The derived resource names. */
  readonly names: SiteNames;
}

/** A site opened for AWS: account, bucket, clients and (as asked) the state; dispose to release. */
export interface AwsSite<S> extends SiteBasics, Disposable {
  /** The AWS account id. */
  readonly accountId: string;
  /** The site bucket. */
  readonly bucket: string;
  /** The site's AWS clients (made on first use). */
  readonly clients: AwsClients;
  /** The state, as {@linkcode SiteNeeds.state} asked (`undefined` when not asked). */
  readonly state: S;
  /** Why the state could not be read (`state: "report"` only). */
  readonly stateError?: string;
  /** The site's facts for the resource graph. */
  readonly facts: SiteFacts;
  /** A graph run over this site with the given state (`bootstrap`, `status`, `destroy`). */
  graphRun(previous: EnvState | null): GraphRun;
}

/** The state type for a {@linkcode StateNeed}. */
export type StateFor<N extends SiteNeeds> = N["state"] extends "required" ? EnvState
  : N["state"] extends "lenient" ? EnvStateView
  : N["state"] extends "optional" | "report" ? EnvState | null
  : undefined;

/** What {@linkcode openSite} returns for given needs. */
export type OpenedSite<N extends SiteNeeds> = N["aws"] extends true ? AwsSite<StateFor<N>>
  : N["state"] extends StateNeed ? AwsSite<StateFor<N>>
  : SiteBasics;

/**
 * Opens the site for a command: loads and resolves the configuration, and as asked resolves
 * the account, creates the clients and reads the state.
 *
 * @param ctx the command context
 * @param needs what the command uses besides the configuration
 * @returns the opened site (dispose an AWS site to release its clients)
 * @throws {DeployError} config errors; `account_unknown`; `state_missing` / `state_invalid`
 *   as asked; AWS failures reading the state
 *
 * @example
 * ```ts
 * using site = await openSite(ctx, { aws: true, state: "required" });
 * site.state.distributionId; // "E2ABC…"
 * ```
 */
export async function openSite<const N extends SiteNeeds>(
  ctx: CommandContext,
  needs: N,
): Promise<OpenedSite<N>> {
  const wantsAws = needs.aws === true || needs.state !== undefined;
  // The bucket name needs the account, so an AWS command resolves it (STS unless
  // AWS_ACCOUNT_ID) before loading the site; other commands never call STS.
  const accountId = wantsAws ? await ctx.accountId() : undefined;
  const site = await ctx.site();
  const basics: SiteBasics = { site, env: site.env, config: site.config, names: site.names };
  if (!wantsAws) return basics as OpenedSite<N>;
  const bucket = site.names.bucket;
  if (accountId === undefined || bucket === null) {
    throw new DeployError("account_unknown", "the AWS account id is unknown", {
      hint: "set AWS_ACCOUNT_ID, or provide credentials so STS GetCallerIdentity can tell",
    });
  }
  const clients = createAwsClients(ctx.environ, site.config.region);
  try {
    const { state, stateError } = await readState(clients, bucket, site.env, needs.state);
    const facts = siteFacts(site, accountId, bucket, ctx.environ);
    const opened: AwsSite<unknown> = {
      ...basics,
      accountId,
      bucket,
      clients,
      state,
      ...(stateError === undefined ? {} : { stateError }),
      facts,
      graphRun: (previous) => ({
        clients,
        facts,
        previous,
        sleep: (ms) => ctx.sleep(ms),
        clock: ctx.clock,
        note: (text) => ctx.out.step(text),
      }),
      [Symbol.dispose]: () => clients[Symbol.dispose](),
    };
    return opened as OpenedSite<N>;
  } catch (err) {
    clients[Symbol.dispose]();
    throw err;
  }
}

async function readState(
  clients: AwsClients,
  bucket: string,
  env: string,
  need: StateNeed | undefined,
): Promise<{ state: EnvState | EnvStateView | null | undefined; stateError?: string }> {
  switch (need) {
    case undefined:
      return { state: undefined };
    case "lenient":
      return { state: await readEnvState(clients.s3, bucket, env, { lenient: true }) };
    case "optional":
      return { state: await readEnvState(clients.s3, bucket, env) };
    case "report":
      try {
        return { state: await readEnvState(clients.s3, bucket, env) };
      } catch (err) {
        return { state: null, stateError: err instanceof DeployError ? err.message : String(err) };
      }
    case "required": {
      const state = await readEnvState(clients.s3, bucket, env);
      if (state === null) {
        throw new DeployError(
          "state_missing",
          `environment "${env}" is not bootstrapped: no s3://${bucket}/${stateKey(env)}`,
          { hint: `run \`deploy bootstrap ${env}\` first` },
        );
      }
      return { state };
    }
  }
}

function siteFacts(
  site: LoadedSite,
  accountId: string,
  bucket: string,
  environ: Readonly<Record<string, string | undefined>>,
): SiteFacts {
  const baseImage = environ[BUILDER_BASE_IMAGE_ENV];
  const domain = site.config.domain;
  return {
    env: site.env,
    accountId,
    config: site.config,
    bucket,
    builderLogGroup: site.names.builderLogGroup,
    cdnLogGroup: site.names.cdnLogGroup,
    deployRole: site.names.deployRole,
    tags: { ...site.names.tags },
    ...(baseImage ? { builderBaseImage: baseImage } : {}),
    // The environment `preview` is the preview stack: its domain is the preview base domain.
    ...(site.env === PREVIEW_ENV && domain !== undefined
      ? { preview: { domain: normalizeDomain(domain) } }
      : {}),
  };
}
