/**
 * The one way a command opens the site: {@linkcode openSite} returns the loaded and resolved
 * configuration, the derived names, and, when the command talks to AWS, the account id, one set
 * of AWS clients and the environment's state (read once when first asked, with the one parser).
 * What a command does not ask for is not loaded: `config` and `init` make no STS call, and only
 * the commands that need `state/<env>.json` read it.
 *
 * @module
 */
import { bootstrapCommandFor } from "../config/env_name.ts";
import type { CommandContext } from "../command.ts";
import type { LoadedSite } from "../config/load.ts";
import { normalizeDomain, PREVIEW_ENV, type SiteNames } from "../config/names.ts";
import type { SiteConfig } from "../config/site_config.ts";
import { DeployError } from "../errors.ts";
import { type AwsClients, createAwsClients } from "../aws/clients.ts";
import { BUILDER_BASE_IMAGE_ENV } from "../infra/nodes/builder_base_image.ts";
import type { GraphRun } from "../infra/reconcile.ts";
import type { SiteFacts } from "../infra/resource.ts";
import { stateKey } from "../state/bucket_layout.ts";
import { type EnvState, readEnvState } from "../state/env_state.ts";

/** What a command needs besides the configuration. */
export interface SiteNeeds {
  /** The account id (STS unless `AWS_ACCOUNT_ID`), the bucket name and the AWS clients. */
  readonly aws?: boolean;
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

/** A site opened for AWS: account, bucket, clients and the state on demand; dispose to release. */
export interface AwsSite extends SiteBasics, Disposable {
  /** The AWS account id. */
  readonly accountId: string;
  /** The site bucket. */
  readonly bucket: string;
  /** The site's AWS clients (made on first use). */
  readonly clients: AwsClients;
  /** The site's facts for the resource graph. */
  readonly facts: SiteFacts;
  /**
   * The environment state, read once: `null` before `bootstrap` created it.
   * @throws {DeployError} `state_invalid`; AWS failures reading it
   */
  state(): Promise<EnvState | null>;
  /**
   * The state of a bootstrapped environment (`deploy`, `plan`, `rollback`, `delete`).
   * @throws {DeployError} `state_missing` when the environment was never bootstrapped, or as
   *   {@linkcode AwsSite.state}
   */
  requireState(): Promise<EnvState>;
  /** A graph run over this site with the given state (`bootstrap`, `status`, `destroy`). */
  graphRun(previous: EnvState | null): GraphRun;
}

/**
 * Opens the site for a command: loads and resolves the configuration, and for AWS resolves the
 * account and creates the clients (the state is read when first asked for).
 *
 * @param ctx the command context
 * @param needs what the command uses besides the configuration
 * @returns the opened site (dispose an AWS site to release its clients)
 * @throws {DeployError} config errors; `account_unknown`
 *
 * @example
 * ```ts
 * import type { CommandContext } from "../command.ts";
 *
 * async function distributionOf(ctx: CommandContext) {
 *   using site = await openSite(ctx, { aws: true });
 *   return (await site.requireState()).distributionId; // "E2ABC…"
 * }
 * ```
 */
export async function openSite(
  ctx: CommandContext,
  needs: { readonly aws: true },
): Promise<AwsSite>;
export async function openSite(ctx: CommandContext, needs?: SiteNeeds): Promise<SiteBasics>;
export async function openSite(
  ctx: CommandContext,
  needs: SiteNeeds = {},
): Promise<SiteBasics | AwsSite> {
  // The bucket name needs the account, so an AWS command resolves it (STS unless
  // AWS_ACCOUNT_ID) before loading the site; other commands never call STS.
  const accountId = needs.aws ? await ctx.accountId() : undefined;
  const site = await ctx.site();
  const basics: SiteBasics = { site, env: site.env, config: site.config, names: site.names };
  if (!needs.aws) return basics;
  const bucket = site.names.bucket;
  if (accountId === undefined || bucket === null) {
    throw new DeployError("account_unknown", "the AWS account id is unknown", {
      hint: "set AWS_ACCOUNT_ID, or provide credentials so STS GetCallerIdentity can tell",
    });
  }
  const clients = createAwsClients(ctx.environ, site.config.region);
  const facts = siteFacts(site, accountId, bucket, ctx.environ);
  let state: Promise<EnvState | null> | undefined;
  const opened: AwsSite = {
    ...basics,
    accountId,
    bucket,
    clients,
    facts,
    state: () => state ??= readEnvState(clients.s3, bucket, site.env),
    async requireState() {
      const found = await opened.state();
      if (found === null) {
        throw new DeployError(
          "state_missing",
          `environment "${site.env}" is not bootstrapped: no s3://${bucket}/${stateKey(site.env)}`,
          { hint: `run \`${bootstrapCommandFor(site.env)}\` first` },
        );
      }
      return found;
    },
    graphRun: (previous) => ({
      clients,
      facts,
      previous,
      sleep: (ms) => ctx.sleep(ms),
      clock: ctx.clock,
      ...(ctx.deployedWait ? { deployedWait: ctx.deployedWait } : {}),
      note: (text) => ctx.out.step(text),
    }),
    [Symbol.dispose]: () => clients[Symbol.dispose](),
  };
  return opened;
}

/**
 * The state for commands that must work around an unreadable one (`status`, `destroy`,
 * `preview teardown`, a plugin's site): `null` with the reason instead of `state_invalid`.
 *
 * @param site the opened site
 * @returns the state, or null and why it could not be read
 */
export async function stateOrReason(
  site: Pick<AwsSite, "state">,
): Promise<{ readonly state: EnvState | null; readonly stateError?: string }> {
  try {
    return { state: await site.state() };
  } catch (err) {
    return { state: null, stateError: err instanceof DeployError ? err.message : String(err) };
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
