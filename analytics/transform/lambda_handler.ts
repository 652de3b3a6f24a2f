/**
 * The transform Lambda's handler, as a function of its dependencies: it reads the salt secret
 * once per container (and again after a failed read), maps each Firehose batch, and logs one
 * line of counts per batch. The Lambda entry (`lambda_main.ts`) supplies the real secret read
 * and log sink; tests supply their own.
 *
 * @module
 */
import type { Logger } from "@org/shared/logger";
import {
  type FirehoseTransformEvent,
  type FirehoseTransformResponse,
  transformBatch,
} from "./firehose_batch.ts";

/** The environment variable naming the salt secret (its ARN) in the Lambda. */
export const SALT_SECRET_ENV = "SALT_SECRET_ID";

/** What the handler needs. */
export interface TransformHandlerDeps {
  /** Reads the salt secret's bytes (Secrets Manager in the Lambda). */
  readSecret(): Promise<Uint8Array>;
  /** Where the batch summaries go (the function's log group). */
  log: Logger;
}

/**
 * Builds the Lambda handler.
 *
 * @param deps the secret read and the logger
 * @returns the handler Firehose invokes
 *
 * @example
 * ```ts
 * import { createMemoryLogger } from "@org/shared";
 * import { createTransformHandler } from "./lambda_handler.ts";
 *
 * const salt = crypto.getRandomValues(new Uint8Array(32));
 * const handler = createTransformHandler({
 *   readSecret: () => Promise.resolve(salt),
 *   log: createMemoryLogger().log,
 * });
 * const out = await handler({
 *   invocationId: "1",
 *   deliveryStreamArn: "arn:aws:firehose:us-east-1:123456789012:deliverystream/production-blog",
 *   region: "us-east-1",
 *   records: [],
 * });
 * if (out.records.length !== 0) throw new Error("an empty batch maps to no rows");
 * ```
 */
export function createTransformHandler(
  deps: TransformHandlerDeps,
): (event: FirehoseTransformEvent) => Promise<FirehoseTransformResponse> {
  // The secret is created once and never rewritten, so one read per container suffices; a
  // failed read is not cached, so the next batch tries again.
  let secret: Promise<Uint8Array> | undefined;
  const readSecret = () => {
    secret ??= deps.readSecret().catch((err) => {
      secret = undefined;
      throw err;
    });
    return secret;
  };
  return async (event) => {
    try {
      const { response, summary } = await transformBatch(event, readSecret);
      const fields = { invocationId: event.invocationId, ...summary };
      if (summary.failed > 0) deps.log.warn("batch had records that could not be mapped", fields);
      else deps.log.info("batch mapped", fields);
      return response;
    } catch (err) {
      // Failing the invocation makes Firehose retry the batch, then send it to the error bucket.
      deps.log.error("batch failed: the salt secret could not be read", {
        invocationId: event.invocationId,
        records: event.records.length,
        error: err instanceof Error ? err.message : String(err),
      });
      throw err;
    }
  };
}
