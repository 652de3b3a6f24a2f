/**
 * CloudWatch Logs' vended-log deliveries, the way every node that pairs a delivery source with a
 * destination needs them: list them all (the API filters by nothing) and create one, waiting
 * while a part is still changing and adopting the delivery a crashed run already made. The
 * site's CDN access-log delivery and plugins' deliveries from the same source share it.
 *
 * @module
 */
import {
  type CloudWatchLogsClient,
  CreateDeliveryCommand,
  type Delivery,
  paginateDescribeDeliveries,
} from "@aws-sdk/client-cloudwatch-logs";
import { DeployError } from "../errors.ts";
import { aws, awsErrorCode, awsFailure } from "./errors.ts";
import { withRetry } from "./retry.ts";
import { allItems } from "./pages.ts";

/** Attempts at `CreateDelivery` while CloudWatch Logs answers that a part is being updated. */
const CREATE_ATTEMPTS = 4;

/**
 * Every delivery in the client's account and region (all pages): the API filters by nothing.
 *
 * @param logs CloudWatch Logs client
 * @param resource the resource being worked on, for a failure's message
 * @returns the deliveries
 * @throws {DeployError} an AWS failure
 */
export function listDeliveries(logs: CloudWatchLogsClient, resource: string): Promise<Delivery[]> {
  return aws(
    { resource, action: "logs:DescribeDeliveries" },
    () => allItems(paginateDescribeDeliveries({ client: logs }, {}), (page) => page.deliveries),
  );
}

/**
 * The delivery from `source` into `destinationArn`, if there is one.
 *
 * @param logs CloudWatch Logs client
 * @param pair the delivery source's name and the destination's ARN
 * @param resource the resource being worked on, for a failure's message
 * @returns the delivery, or undefined
 * @throws {DeployError} an AWS failure
 */
export async function findDelivery(
  logs: CloudWatchLogsClient,
  pair: { readonly source: string; readonly destinationArn: string },
  resource: string,
): Promise<Delivery | undefined> {
  return (await listDeliveries(logs, resource)).find((d) =>
    d.deliverySourceName === pair.source && d.deliveryDestinationArn === pair.destinationArn
  );
}

/** What {@linkcode createDelivery} makes. */
export interface DeliveryRequest {
  /** The delivery source's name. */
  readonly source: string;
  /** The delivery destination's ARN. */
  readonly destinationArn: string;
  /** Tags for the delivery. */
  readonly tags: Readonly<Record<string, string>>;
  /** The record fields to deliver; absent: all of them. */
  readonly recordFields?: readonly string[];
}

/**
 * `CreateDelivery`, retried while CloudWatch Logs answers `ConflictException` because a part
 * was just changed; a conflict because the delivery exists (a run that crashed before recording
 * it) adopts that delivery, which may then differ from the request (`adopted: true`).
 *
 * @param logs CloudWatch Logs client
 * @param request source, destination, tags and fields
 * @param options the resource's name for messages, and the run's injected wait
 * @returns the delivery, and whether it was found rather than made
 * @throws {DeployError} an AWS failure, or a conflict that outlasts the retries
 */
export async function createDelivery(
  logs: CloudWatchLogsClient,
  request: DeliveryRequest,
  options: { readonly resource: string; readonly sleep: (ms: number) => Promise<void> },
): Promise<{ delivery: Delivery; adopted: boolean }> {
  const at = { resource: options.resource, action: "logs:CreateDelivery" };
  const conflict = (err: unknown) => awsErrorCode(err) === "ConflictException";
  try {
    return await withRetry(async () => {
      try {
        const out = await logs.send(
          new CreateDeliveryCommand({
            deliverySourceName: request.source,
            deliveryDestinationArn: request.destinationArn,
            ...(request.recordFields ? { recordFields: [...request.recordFields] } : {}),
            tags: { ...request.tags },
          }),
        );
        if (out.delivery) return { delivery: out.delivery, adopted: false };
      } catch (err) {
        if (!conflict(err)) throw err;
        const found = await findDelivery(logs, request, options.resource);
        if (found) return { delivery: found, adopted: true };
        throw err;
      }
      throw new DeployError(
        "aws_request_failed",
        `CreateDelivery returned no delivery for ${options.resource}`,
      );
    }, {
      isRetryable: conflict,
      attempts: CREATE_ATTEMPTS,
      baseDelayMs: 1000,
      sleep: options.sleep,
    });
  } catch (err) {
    throw awsFailure(err, at);
  }
}
