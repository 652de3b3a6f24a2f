/**
 * The IAM OpenID Connect provider for GitHub Actions (`token.actions.githubusercontent.com`),
 * created when `githubRepo` is set. It is account-wide and shared by every site and
 * environment, so `destroy` keeps it.
 *
 * @module
 */
import {
  CreateOpenIDConnectProviderCommand,
  DeleteOpenIDConnectProviderCommand,
  GetOpenIDConnectProviderCommand,
} from "@aws-sdk/client-iam";
import { aws, awsErrorCode, awsMaybe } from "../../aws/errors.ts";
import { tagList } from "../../aws/tags.ts";
import type { ResourceNode } from "../resource.ts";

/** The code host's OIDC issuer host. */
export const GITHUB_OIDC_HOST = "token.actions.githubusercontent.com";

/** The audience GitHub's AWS credentials action requests. */
export const GITHUB_OIDC_AUDIENCE = "sts.amazonaws.com";

/**
 * The provider's ARN in an account (pure).
 *
 * @param accountId the AWS account
 * @returns `arn:aws:iam::<account>:oidc-provider/token.actions.githubusercontent.com`
 */
export function oidcProviderArn(accountId: string): string {
  return `arn:aws:iam::${accountId}:oidc-provider/${GITHUB_OIDC_HOST}`;
}

/** The OIDC provider node. */
export const oidcProviderNode: ResourceNode = {
  id: "oidcProvider",
  dependsOn: [],
  wanted: (facts) => facts.config.githubRepo !== undefined,
  label: () => `OIDC provider ${GITHUB_OIDC_HOST}`,
  keep: "account-wide, shared with other sites and environments",
  async read(ctx) {
    const arn = oidcProviderArn(ctx.facts.accountId);
    const out = await awsMaybe(
      { resource: `OIDC provider ${GITHUB_OIDC_HOST}`, action: "iam:GetOpenIDConnectProvider" },
      () =>
        ctx.clients.iam.send(
          new GetOpenIDConnectProviderCommand({ OpenIDConnectProviderArn: arn }),
        ),
    );
    // Its audiences and tags are not reconciled: the provider may predate this tool.
    return out ? { outputs: { arn }, drift: [] } : null;
  },
  async create(ctx) {
    const arn = oidcProviderArn(ctx.facts.accountId);
    await aws({
      resource: `OIDC provider ${GITHUB_OIDC_HOST}`,
      action: "iam:CreateOpenIDConnectProvider",
    }, async () => {
      try {
        await ctx.clients.iam.send(
          new CreateOpenIDConnectProviderCommand({
            Url: `https://${GITHUB_OIDC_HOST}`,
            ClientIDList: [GITHUB_OIDC_AUDIENCE],
            Tags: tagList(ctx.facts.tags),
          }),
        );
      } catch (err) {
        if (awsErrorCode(err) !== "EntityAlreadyExists") throw err;
      }
    });
    return { arn };
  },
  update(_ctx, live) {
    return Promise.resolve(live.outputs);
  },
  async delete(ctx, live) {
    await awsMaybe(
      { resource: `OIDC provider ${GITHUB_OIDC_HOST}`, action: "iam:DeleteOpenIDConnectProvider" },
      () =>
        ctx.clients.iam.send(
          new DeleteOpenIDConnectProviderCommand({
            OpenIDConnectProviderArn: String(live.outputs.arn),
          }),
        ),
    );
  },
};
