/**
 * The Glue `s3tablescatalog` federation: the account-wide catalog through which Firehose (and
 * query engines) reach every S3 table bucket of the account in us-east-1. Adopted when present,
 * created when missing, never deleted: other table buckets may depend on it.
 *
 * @module
 */
import { type CatalogInput, CreateCatalogCommand, GetCatalogCommand } from "@aws-sdk/client-glue";
import { aws, awsErrorCode, awsMaybe, DeployError, type NodeOutputs } from "@org/deploy/plugin";
import type { AnalyticsFacts, AnalyticsNode } from "../facts.ts";
import { ANALYTICS_REGION, S3_TABLES_CATALOG } from "../names.ts";

/** The Glue connection that federates S3 Tables. */
export const S3_TABLES_CONNECTION = "aws:s3tables";

/**
 * The catalog's input (pure): a federation of every table bucket of the account.
 *
 * @param accountId the AWS account id
 * @returns the `CatalogInput` for `CreateCatalog`
 */
export function catalogInput(accountId: string): CatalogInput {
  return {
    FederatedCatalog: {
      Identifier: `arn:aws:s3tables:${ANALYTICS_REGION}:${accountId}:bucket/*`,
      ConnectionName: S3_TABLES_CONNECTION,
    },
    CreateDatabaseDefaultPermissions: [],
    CreateTableDefaultPermissions: [],
  };
}

const label = () => `Glue catalog ${S3_TABLES_CATALOG} (${ANALYTICS_REGION}, account-wide)`;
const at = (action: string) => ({ resource: label(), action });
const outputs = (facts: AnalyticsFacts): NodeOutputs => ({
  name: S3_TABLES_CATALOG,
  arn: `arn:aws:glue:${ANALYTICS_REGION}:${facts.accountId}:catalog/${S3_TABLES_CATALOG}`,
});

/** The catalog node. */
export const catalogNode: AnalyticsNode = {
  id: "catalog",
  dependsOn: [],
  wanted: () => true,
  label,
  keep: "account-wide: every S3 table bucket of the account is reached through it",
  async read(ctx) {
    const out = await awsMaybe(
      at("glue:GetCatalog"),
      () => ctx.clients.glue.send(new GetCatalogCommand({ CatalogId: S3_TABLES_CATALOG })),
      "EntityNotFoundException",
    );
    if (!out?.Catalog) return null;
    const connection = out.Catalog.FederatedCatalog?.ConnectionName;
    const drift = connection === S3_TABLES_CONNECTION
      ? []
      : [`federated through ${connection ?? "nothing"}, want ${S3_TABLES_CONNECTION}`];
    return { outputs: outputs(ctx.facts), drift };
  },
  async create(ctx) {
    await aws(at("glue:CreateCatalog"), async () => {
      try {
        await ctx.clients.glue.send(
          new CreateCatalogCommand({
            Name: S3_TABLES_CATALOG,
            CatalogInput: catalogInput(ctx.facts.accountId),
          }),
        );
      } catch (err) {
        if (awsErrorCode(err) !== "AlreadyExistsException") throw err; // made meanwhile: adopt
      }
    });
    return outputs(ctx.facts);
  },
  update() {
    // Account-wide and shared: never rewritten by one site's bootstrap.
    return Promise.reject(
      new DeployError(
        "aws_request_failed",
        `${label()} exists but does not federate S3 Tables`,
        {
          hint: "enable the S3 Tables integration with AWS analytics services in the S3 console " +
            "(us-east-1), then run `deploy analytics bootstrap` again",
        },
      ),
    );
  },
  delete: () => Promise.resolve(),
};
