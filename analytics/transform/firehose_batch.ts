/**
 * The Firehose record-transformation contract: the envelope Firehose invokes the transform
 * Lambda with, the answer it expects, and the function that maps one batch. Every input record
 * gets exactly one answer with its `recordId`: `Ok` with the row, or `ProcessingFailed` (which
 * Firehose writes to the error bucket), never a silent drop. A salt secret that cannot be read
 * rejects the whole batch, so Firehose retries it rather than store an unsalted digest.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import { mapCloudFrontRecord } from "./cloudfront_record.ts";
import { dailySalt, SALT_SECRET_BYTES } from "./visitor_key.ts";

/** One record Firehose hands the transform. */
export interface FirehoseInputRecord {
  /** Firehose's id; the answer must carry it back. */
  readonly recordId: string;
  /** When Firehose received it (ms since epoch). */
  readonly approximateArrivalTimestamp?: number;
  /** The record, base64. */
  readonly data: string;
}

/** The transformation event (Firehose's `Lambda` processor invocation). */
export interface FirehoseTransformEvent {
  readonly invocationId: string;
  readonly deliveryStreamArn: string;
  readonly region: string;
  readonly records: readonly FirehoseInputRecord[];
}

/** How one record came out. */
export type FirehoseResult = "Ok" | "Dropped" | "ProcessingFailed";

/** One answered record. */
export interface FirehoseOutputRecord {
  recordId: string;
  result: FirehoseResult;
  /** The row as JSON, base64 (for `ProcessingFailed`: the input, unchanged). */
  data: string;
}

/** The transformation answer. */
export interface FirehoseTransformResponse {
  records: FirehoseOutputRecord[];
}

/** What one batch tells the log (counts only: never a row, an IP or the secret). */
export interface BatchSummary {
  readonly ok: number;
  readonly failed: number;
  /** The distinct failure reasons. */
  readonly reasons: readonly string[];
}

/**
 * Maps one Firehose batch. The secret is read once per batch (the handler caches it across
 * batches); each record's salt is derived from its own UTC day.
 *
 * @param event the Firehose envelope
 * @param readSecret resolves the salt secret's bytes
 * @returns the answer for Firehose and a summary for the log
 * @throws when the secret cannot be read or is not {@linkcode SALT_SECRET_BYTES} bytes: the
 *   whole batch fails and Firehose retries it
 */
export async function transformBatch(
  event: FirehoseTransformEvent,
  readSecret: () => Promise<Uint8Array>,
): Promise<{ response: FirehoseTransformResponse; summary: BatchSummary }> {
  const secret = await readSecret();
  if (secret.length !== SALT_SECRET_BYTES) {
    throw new Error(`the salt secret has ${secret.length} bytes, want ${SALT_SECRET_BYTES}`);
  }
  const salts = new Map<string, Uint8Array>();
  const saltFor = (day: string) => {
    let salt = salts.get(day);
    if (!salt) salts.set(day, salt = dailySalt(secret, day));
    return salt;
  };
  const reasons = new Set<string>();
  let ok = 0;
  const records = event.records.map((input): FirehoseOutputRecord => {
    const failed = (reason: string): FirehoseOutputRecord => {
      reasons.add(reason);
      return { recordId: input.recordId, result: "ProcessingFailed", data: input.data };
    };
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(input.data, "base64").toString("utf8"));
    } catch {
      return failed("the record is not JSON");
    }
    const mapped = mapCloudFrontRecord(parsed, saltFor);
    if (!("row" in mapped)) return failed(mapped.reason);
    ok += 1;
    return {
      recordId: input.recordId,
      result: "Ok",
      data: Buffer.from(JSON.stringify(mapped.row) + "\n", "utf8").toString("base64"),
    };
  });
  return {
    response: { records },
    summary: { ok, failed: records.length - ok, reasons: [...reasons].sort() },
  };
}
