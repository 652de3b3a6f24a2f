/**
 * What the infrastructure commands (`bootstrap`, `status`, `delete`, `destroy`) share: the
 * account id (STS unless `AWS_ACCOUNT_ID`), the loaded site, its facts for the resource graph
 * and the AWS clients.
 *
 * @module
 */
import type { CommandContext } from "../cli/command.ts";
import type { LoadedSite } from "../config/load.ts";
import { DeployError } from "../errors.ts";
import { type AwsClients, createAwsClients, destroyAwsClients } from "../infra/aws_clients.ts";
import { BUILDER_BASE_IMAGE_ENV } from "../infra/nodes/builder_base_image.ts";
import type { GraphRun } from "../infra/reconcile.ts";
import type { SiteFacts } from "../infra/resource.ts";
import type { EnvState } from "../state/env_state.ts";

/** A site with its AWS clients; `close()` releases the clients. */
export interface AwsSite extends Disposable {
  readonly site: LoadedSite;
  readonly facts: SiteFacts;
  readonly clients: AwsClients;
  /** A graph run over this site with the given state. */
  graphRun(previous: EnvState | null): GraphRun;
}

/**
 * Resolves the account, loads the site and builds its clients.
 *
 * @param ctx the command context
 * @returns the site, disposable
 * @throws {DeployError} `account_unknown`, config errors, STS failures
 */
export async function openAwsSite(ctx: CommandContext): Promise<AwsSite> {
  const accountId = await ctx.accountId();
  const site = await ctx.site();
  if (accountId === undefined || site.names.bucket === null) {
    throw new DeployError("account_unknown", "the AWS account id is unknown", {
      hint: "set AWS_ACCOUNT_ID, or provide credentials so STS GetCallerIdentity can tell",
    });
  }
  const facts: SiteFacts = {
    env: site.env,
    accountId,
    config: site.config,
    bucket: site.names.bucket,
    builderLogGroup: site.names.builderLogGroup,
    cdnLogGroup: site.names.cdnLogGroup,
    deployRole: site.names.deployRole,
    tags: { ...site.names.tags },
    ...(ctx.environ[BUILDER_BASE_IMAGE_ENV]
      ? { builderBaseImage: ctx.environ[BUILDER_BASE_IMAGE_ENV] }
      : {}),
  };
  const clients = createAwsClients(ctx.environ, site.config.region);
  return {
    site,
    facts,
    clients,
    graphRun: (previous) => ({
      clients,
      facts,
      previous,
      sleep: (ms) => ctx.sleep(ms),
      clock: ctx.clock,
      note: (text) => ctx.out.step(text),
    }),
    [Symbol.dispose]: () => destroyAwsClients(clients),
  };
}
