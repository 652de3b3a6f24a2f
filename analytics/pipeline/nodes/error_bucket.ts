/**
 * The Firehose error bucket `<env>-<siteName>-analytics-errors-<accountId>` (us-east-1): where
 * Firehose writes records the transform reported `ProcessingFailed` and batches it could not
 * deliver, so nothing is dropped silently. Private, tagged, emptied and deleted on destroy.
 *
 * @module
 */
import { privateBucketNode } from "@org/deploy/plugin";
import type { AnalyticsClients, AnalyticsFacts, AnalyticsNode, AnalyticsNodeId } from "../facts.ts";
import { ANALYTICS_REGION } from "../names.ts";

/** Key prefix of records the transform could not map. */
export const FAILED_RECORDS_PREFIX = "failed/";

/** The error bucket node. */
export const errorBucketNode: AnalyticsNode = privateBucketNode<
  AnalyticsFacts,
  AnalyticsClients,
  AnalyticsNodeId
>({
  id: "errorBucket",
  name: (facts) => facts.names.errorBucket,
  region: () => ANALYTICS_REGION,
  s3: (ctx) => ctx.clients.s3,
  labelSuffix: ` (${ANALYTICS_REGION})`,
});
