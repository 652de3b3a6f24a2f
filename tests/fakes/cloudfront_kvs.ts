/**
 * A loopback fake of the CloudFront KeyValueStore data plane (`cloudfront-keyvaluestore`,
 * REST-JSON, signed with SigV4a): `DescribeKeyValueStore`, `ListKeys` (paged), `GetKey` and
 * `UpdateKeys`, with the store's ETag checked on every write as the service checks it, and the
 * service's limits (keys of 512 bytes, values of 1 KB, 50 changes per request, 5 MB a store).
 * The stores themselves are the CloudFront fake's (`CreateKeyValueStore`): a key of a store it
 * does not hold is `ResourceNotFoundException`.
 *
 * @module
 */
import { renderRestJsonError } from "./rest_json.ts";
import { type AwsFake, FakeAwsError, type RoutedCall, startFakeServer } from "./server.ts";
import type { FakeKeyValueStore } from "./cloudfront.ts";

/** One store's keys and version, by ARN. */
export interface FakeKvsData {
  /** Keys to values. */
  readonly keys: Map<string, string>;
  /** The store's data ETag (changes on every write). */
  etag: string;
}

/** The data-plane fake's state. */
export interface CloudFrontKvsFakeState {
  /** Each store's data, by ARN (created on first use of a store the CloudFront fake holds). */
  readonly data: Map<string, FakeKvsData>;
  /** The data of a store, for assertions. */
  entries(arn: string): Map<string, string>;
}

/** The service's limits (CloudFront Developer Guide, "Quotas": key value stores). */
const KEY_LIMIT = 512;
const VALUE_LIMIT = 1024;
const CHANGES_PER_REQUEST = 50;
const STORE_LIMIT = 5 * 1024 * 1024;

/**
 * Starts the data-plane fake on a free loopback port.
 *
 * @param stores the CloudFront fake's stores (by name), to know which ARNs exist
 * @returns the fake; `await using` stops it
 */
export function startCloudFrontKvsFake(
  stores: ReadonlyMap<string, FakeKeyValueStore>,
): AwsFake<CloudFrontKvsFakeState> {
  const data = new Map<string, FakeKvsData>();
  let version = 0;
  const store = (arn: string): FakeKvsData => {
    if (![...stores.values()].some((s) => s.arn === arn)) {
      throw new FakeAwsError("ResourceNotFoundException", 404, `No key value store ${arn}.`);
    }
    let d = data.get(arn);
    if (!d) {
      d = { keys: new Map(), etag: `KVSETAG${++version}` };
      data.set(arn, d);
    }
    return d;
  };
  const bytes = (s: string) => new TextEncoder().encode(s).byteLength;
  const size = (d: FakeKvsData) => [...d.keys].reduce((n, [k, v]) => n + bytes(k) + bytes(v), 0);
  const describe = (arn: string, d: FakeKvsData) => ({
    ItemCount: d.keys.size,
    TotalSizeInBytes: size(d),
    KvsARN: arn,
    Created: 0,
    LastModified: 0,
    Status: "READY",
  });
  const state: CloudFrontKvsFakeState = {
    data,
    entries: (arn) => new Map(data.get(arn)?.keys ?? []),
  };

  const route = async (req: Request): Promise<RoutedCall | undefined> => {
    const url = new URL(req.url);
    const m = /^\/key-value-stores\/([^/]+)(\/keys(?:\/([^/]+))?)?$/.exec(url.pathname);
    if (!m) return undefined;
    const arn = decodeURIComponent(m[1]!);
    const keysPath = m[2] !== undefined;
    const key = m[3] === undefined ? undefined : decodeURIComponent(m[3]);
    const text = req.method === "POST" ? await req.text() : "";
    const body = text.trim() ? JSON.parse(text) as Record<string, unknown> : {};
    const ifMatch = req.headers.get("if-match");
    const input = { KvsARN: arn, ...Object.fromEntries(url.searchParams), ...body };
    if (!keysPath && req.method === "GET") {
      return {
        operation: "DescribeKeyValueStore",
        input,
        handle: () => {
          const d = store(arn);
          return Response.json(describe(arn, d), { headers: { etag: d.etag } });
        },
      };
    }
    if (keysPath && key === undefined && req.method === "GET") {
      return {
        operation: "ListKeys",
        input,
        handle: () => {
          const all = [...store(arn).keys].sort(([a], [b]) => a < b ? -1 : a > b ? 1 : 0);
          const max = Math.min(Number(url.searchParams.get("MaxResults") ?? 50), 50);
          const start = Number(url.searchParams.get("NextToken") ?? 0);
          const page = all.slice(start, start + max);
          return Response.json({
            Items: page.map(([Key, Value]) => ({ Key, Value })),
            ...(start + max < all.length ? { NextToken: String(start + max) } : {}),
          });
        },
      };
    }
    if (key !== undefined && req.method === "GET") {
      return {
        operation: "GetKey",
        input: { ...input, Key: key },
        handle: () => {
          const d = store(arn);
          const value = d.keys.get(key);
          if (value === undefined) {
            throw new FakeAwsError("ResourceNotFoundException", 404, `No key ${key}.`);
          }
          return Response.json({
            Key: key,
            Value: value,
            ItemCount: d.keys.size,
            TotalSizeInBytes: size(d),
          });
        },
      };
    }
    if (keysPath && key === undefined && req.method === "POST") {
      return {
        operation: "UpdateKeys",
        input,
        handle: () => {
          const d = store(arn);
          if (ifMatch !== d.etag) {
            throw new FakeAwsError(
              "ValidationException",
              412,
              "The If-Match ETag does not match the store's current ETag.",
            );
          }
          const puts = (body.Puts as { Key: string; Value: string }[] | undefined) ?? [];
          const deletes = (body.Deletes as { Key: string }[] | undefined) ?? [];
          if (puts.length + deletes.length > CHANGES_PER_REQUEST) {
            throw new FakeAwsError(
              "ValidationException",
              400,
              `At most ${CHANGES_PER_REQUEST} keys may change in one request.`,
            );
          }
          for (const p of puts) {
            if (bytes(p.Key) > KEY_LIMIT || bytes(p.Value) > VALUE_LIMIT) {
              throw new FakeAwsError(
                "ValidationException",
                400,
                `Key ${p.Key.slice(0, 40)} or its value is over the size limit.`,
              );
            }
          }
          const next = new Map(d.keys);
          for (const p of puts) next.set(p.Key, p.Value);
          for (const x of deletes) next.delete(x.Key);
          if (size({ keys: next, etag: "" }) > STORE_LIMIT) {
            throw new FakeAwsError("ServiceQuotaExceededException", 402, "The store is full.");
          }
          d.keys.clear();
          for (const [k, v] of next) d.keys.set(k, v);
          d.etag = `KVSETAG${++version}`;
          return Response.json({ ItemCount: d.keys.size, TotalSizeInBytes: size(d) }, {
            headers: { etag: d.etag },
          });
        },
      };
    }
    return undefined;
  };

  return startFakeServer({
    service: "cloudfront-keyvaluestore",
    route,
    renderError: renderRestJsonError,
  }, state).fake;
}
