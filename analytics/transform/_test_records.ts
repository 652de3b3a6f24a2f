/**
 * CloudFront log records (standard logging v2, JSON) for the transform's tests.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { FirehoseTransformEvent } from "./firehose_batch.ts";

const b64 = (text: string) => Buffer.from(text, "utf8").toString("base64");

/** A browser's page view, every selected field present, as CloudFront writes it (strings). */
export const PAGE_VIEW: Readonly<Record<string, string>> = {
  "timestamp(ms)": "1795428000123",
  "date": "2026-11-23",
  "time": "10:00:00",
  "c-ip": "203.0.113.9",
  "x-host-header": "blog.example.com",
  "cs(Host)": "d111111abcdef8.cloudfront.net",
  "cs-uri-stem": "/posts/hello/",
  "cs-uri-query": "utm_source=feed",
  "cs-method": "GET",
  "sc-status": "200",
  "cs(Referer)": "https://news.example.org/",
  "cs(User-Agent)":
    "Mozilla/5.0%20(X11;%20Linux%20x86_64;%20rv:140.0)%20Gecko/20100101%20Firefox/140.0",
  "c-country": "DE",
  "asn": "3320",
  "x-edge-location": "FRA56-P1",
  "x-edge-result-type": "Hit",
  "sc-bytes": "5123",
  "time-taken": "0.002",
  "sc-content-type": "text/html",
  "cs-protocol": "https",
  "x-edge-request-id": "abcDEF123==",
  "cs(Cookie)": "session=do-not-store",
  "x-forwarded-for": "198.51.100.7",
};

/** The secret the tests salt with. */
export const TEST_SECRET: Uint8Array = new Uint8Array(32).map((_, i) => i);

/** A Firehose envelope around the given record bodies. */
export function envelope(bodies: string[]): FirehoseTransformEvent {
  return {
    invocationId: "inv-1",
    deliveryStreamArn: "arn:aws:firehose:us-east-1:123456789012:deliverystream/s",
    region: "us-east-1",
    records: bodies.map((body, i) => ({
      recordId: `r${i}`,
      approximateArrivalTimestamp: 1795428000000,
      data: b64(body),
    })),
  };
}

let logEventSeq = 0;

/**
 * A CloudWatch Logs event holding one page view (`PAGE_VIEW`) at `iso`, as the site's log group
 * stores it: the backfill's input. Each has its own request id.
 *
 * @param iso when the request was served
 * @param fields fields to change (`c-ip`, `cs-uri-stem`, …)
 * @returns the log event
 */
export function pageViewLogEvent(
  iso: string,
  fields: Record<string, string> = {},
): { timestamp: number; message: string } {
  const ms = Date.parse(iso);
  return {
    timestamp: ms,
    message: JSON.stringify({
      ...PAGE_VIEW,
      "timestamp(ms)": String(ms),
      "date": iso.slice(0, 10),
      "time": iso.slice(11, 19),
      "x-edge-request-id": `req-${++logEventSeq}`,
      ...fields,
    }),
  };
}
