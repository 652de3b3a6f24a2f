/**
 * Reading one UTC day of the site's CloudFront access logs from its log group (us-east-1)
 * with CloudWatch Logs `FilterLogEvents`, page by page.
 *
 * @module
 */
import {
  type CloudWatchLogsClient,
  paginateFilterLogEvents,
} from "@aws-sdk/client-cloudwatch-logs";
import { aws } from "@org/deploy/plugin";

/**
 * How far past each end of the day events are read. A log event's timestamp is when the
 * record was logged, which can trail the request by a little; the rows are kept by their own
 * `day`, so reading a margin loses no request near midnight and duplicates none.
 */
export const DAY_MARGIN_MS = 3_600_000;

/**
 * The messages of the log events around one UTC day, one array per page.
 *
 * @param logs a CloudWatch Logs client in us-east-1
 * @param logGroup the site's CloudFront log group (`/<siteName>/<env>/cloudfront`)
 * @param day the UTC day, `YYYY-MM-DD`
 * @returns the pages of messages
 * @throws {DeployError} mapped AWS failures (`aws_access_denied`, `aws_request_failed`, …)
 */
export async function* dayLogMessages(
  logs: CloudWatchLogsClient,
  logGroup: string,
  day: string,
): AsyncGenerator<string[]> {
  const start = Date.parse(`${day}T00:00:00Z`);
  const pages = paginateFilterLogEvents({ client: logs }, {
    logGroupName: logGroup,
    startTime: start - DAY_MARGIN_MS,
    endTime: start + 86_400_000 + DAY_MARGIN_MS,
  });
  const at = { action: "logs:FilterLogEvents", resource: `log group ${logGroup} (us-east-1)` };
  while (true) {
    const page = await aws(at, () => pages.next());
    if (page.done) return;
    yield (page.value.events ?? []).flatMap((e) => e.message === undefined ? [] : [e.message]);
  }
}
