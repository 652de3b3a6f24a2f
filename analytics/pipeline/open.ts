/**
 * Opening the pipeline for a command: the site as the core opened it, the plugin's us-east-1
 * clients from the core's client factory, and the facts every node reads.
 *
 * @module
 */
import { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import { FirehoseClient } from "@aws-sdk/client-firehose";
import { GlueClient } from "@aws-sdk/client-glue";
import { IAMClient } from "@aws-sdk/client-iam";
import { LambdaClient } from "@aws-sdk/client-lambda";
import { S3Client } from "@aws-sdk/client-s3";
import { S3TablesClient } from "@aws-sdk/client-s3tables";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { CommandContext, PluginSite } from "@org/deploy/plugin";
import type { AnalyticsClients, AnalyticsFacts } from "./facts.ts";
import { ANALYTICS_REGION, analyticsNames } from "./names.ts";
import type { PipelineRun } from "./run.ts";
import type { AnalyticsConfig } from "../section.ts";

/**
 * The pipeline's clients, all in us-east-1, made by the core's factory on first use.
 *
 * @param site the opened site
 * @returns the clients
 */
export function analyticsClients(site: PluginSite): AnalyticsClients {
  const r = ANALYTICS_REGION;
  return {
    get s3tables() {
      return site.client(S3TablesClient, "S3TABLES", r);
    },
    get glue() {
      return site.client(GlueClient, "GLUE", r);
    },
    get secrets() {
      return site.client(SecretsManagerClient, "SECRETS_MANAGER", r);
    },
    get lambda() {
      return site.client(LambdaClient, "LAMBDA", r);
    },
    get firehose() {
      return site.client(FirehoseClient, "FIREHOSE", r);
    },
    get iam() {
      return site.client(IAMClient, "IAM", r);
    },
    get logs() {
      return site.client(CloudWatchLogsClient, "CLOUDWATCH_LOGS", r);
    },
    get s3() {
      return site.client(S3Client, "S3", r);
    },
  };
}

/**
 * The pipeline's facts (pure).
 *
 * @param site the opened site
 * @param config the resolved `analytics` section
 * @returns the facts
 */
export function analyticsFacts(
  site: Pick<PluginSite, "env" | "siteName" | "accountId" | "tags">,
  config: AnalyticsConfig,
): AnalyticsFacts {
  return {
    env: site.env,
    siteName: site.siteName,
    accountId: site.accountId,
    config,
    names: analyticsNames(site, config),
    tags: site.tags,
  };
}

/**
 * A pipeline run for a command.
 *
 * @param ctx the command context (sleep, clock, notes)
 * @param site the opened site
 * @param config the resolved `analytics` section
 * @returns the run
 */
export function pipelineRunFor(
  ctx: CommandContext,
  site: PluginSite,
  config: AnalyticsConfig,
): PipelineRun {
  return {
    clients: analyticsClients(site),
    facts: analyticsFacts(site, config),
    state: { s3: site.s3, bucket: site.bucket },
    sleep: (ms) => ctx.sleep(ms),
    clock: ctx.clock,
    note: (text) => ctx.out.step(text),
  };
}
