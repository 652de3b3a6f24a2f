/**
 * The pipeline's two diagnostic log groups, both in us-east-1 with the spec's fixed 365 days:
 * the transform Lambda's (`/aws/lambda/<function>`, where Lambda writes by default) and the
 * Firehose stream's (`/aws/kinesisfirehose/<stream>`, delivery errors).
 *
 * @module
 */
import { logGroupNode, type LogGroupSpec } from "@org/deploy/plugin";
import type { AnalyticsClients, AnalyticsFacts, AnalyticsNode, AnalyticsNodeId } from "../facts.ts";
import { ANALYTICS_REGION, DIAGNOSTIC_LOG_DAYS } from "../names.ts";

/**
 * A diagnostic log group's description (pure).
 *
 * @param name the group name
 * @param facts the pipeline
 * @returns name, region, retention and tags
 */
export function diagnosticLogGroup(name: string, facts: AnalyticsFacts): LogGroupSpec {
  return { name, region: ANALYTICS_REGION, retentionDays: DIAGNOSTIC_LOG_DAYS, tags: facts.tags };
}

/** The transform Lambda's log group node. */
export const transformLogGroupNode: AnalyticsNode = logGroupNode<
  AnalyticsFacts,
  AnalyticsClients,
  AnalyticsNodeId
>(
  "transformLogGroup",
  (facts) => diagnosticLogGroup(facts.names.transformLogGroup, facts),
  (ctx) => ctx.clients.logs,
);

/** The Firehose stream's log group node. */
export const streamLogGroupNode: AnalyticsNode = logGroupNode<
  AnalyticsFacts,
  AnalyticsClients,
  AnalyticsNodeId
>(
  "streamLogGroup",
  (facts) => diagnosticLogGroup(facts.names.streamLogGroup, facts),
  (ctx) => ctx.clients.logs,
);
