/**
 * What every analytics node's desired description depends on (pure data), and the clients
 * its operations use. All clients are for us-east-1.
 *
 * @module
 */
import type { FirehoseClient } from "@aws-sdk/client-firehose";
import type { GlueClient } from "@aws-sdk/client-glue";
import type { LambdaClient } from "@aws-sdk/client-lambda";
import type { S3TablesClient } from "@aws-sdk/client-s3tables";
import type { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import type { IAMClient } from "@aws-sdk/client-iam";
import type { S3Client } from "@aws-sdk/client-s3";
import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { NodeContext, ResourceNode } from "@org/deploy/plugin";
import type { AnalyticsNames } from "./names.ts";
import type { AnalyticsConfig } from "../section.ts";

/** The pipeline's facts. */
export interface AnalyticsFacts {
  /** Environment name. */
  readonly env: string;
  /** AWS account id. */
  readonly accountId: string;
  /** The site's `siteName`. */
  readonly siteName: string;
  /** The resolved `analytics` section. */
  readonly config: AnalyticsConfig;
  /** Every derived name. */
  readonly names: AnalyticsNames;
  /** The site's `app` / `environment` tags, put on every resource. */
  readonly tags: Readonly<Record<string, string>>;
}

/** The clients the analytics nodes use, all in us-east-1. */
export interface AnalyticsClients {
  readonly s3tables: S3TablesClient;
  readonly glue: GlueClient;
  readonly secrets: SecretsManagerClient;
  readonly lambda: LambdaClient;
  readonly firehose: FirehoseClient;
  readonly iam: IAMClient;
  readonly logs: CloudWatchLogsClient;
  /** S3 in us-east-1 (the error bucket). */
  readonly s3: S3Client;
}

/** The analytics node ids, in dependency order. Stable: they key the plugin's state. */
export type AnalyticsNodeId =
  | "tableBucket"
  | "namespace"
  | "table"
  | "catalog"
  | "saltSecret"
  | "transformLogGroup"
  | "transformRole"
  | "transform"
  | "errorBucket"
  | "streamLogGroup"
  | "streamRole"
  | "stream"
  | "logDestination"
  | "logDelivery";

/** An analytics resource node. */
export type AnalyticsNode = ResourceNode<AnalyticsFacts, AnalyticsClients, AnalyticsNodeId>;

/** What an analytics node's operations get. */
export type AnalyticsContext = NodeContext<AnalyticsFacts, AnalyticsClients, AnalyticsNodeId>;
