/**
 * s3rver with the bucket-configuration APIs it lacks: a loopback proxy in front of it that
 * answers `?publicAccessBlock`, `?ownershipControls`, `?policy`, `?tagging` and `?lifecycle` on buckets
 * itself (in S3's REST-XML wire format, echoing back what the SDK sent) and forwards every
 * other request, Host header included so SigV4 signatures still verify, to s3rver.
 *
 * Object tags, which s3rver ignores, live in the proxy: set by `x-amz-tagging` on PutObject and
 * CopyObject (`x-amz-tagging-directive: REPLACE`; the default `COPY` takes the source's),
 * dropped with the object, and read back with GetObjectTagging. Object operations can be made
 * to fail with `fail()`, as the other fakes' can.
 *
 * It can also pretend a bucket name belongs to another account (`foreign`): `HeadBucket`
 * answers 403 and `CreateBucket` `BucketAlreadyExists`, as real S3 does.
 *
 * @module
 */
import { join } from "node:path";
import { type S3Fixture, startS3 } from "../support/s3.ts";
import type { FailureSpec, FakeCall } from "./server.ts";
import { escapeXml, parseXml, textAt } from "./xml.ts";

/** The bucket sub-resources the proxy serves itself. */
const CONFIGS = [
  "publicAccessBlock",
  "ownershipControls",
  "policy",
  "tagging",
  "lifecycle",
] as const;
type ConfigName = typeof CONFIGS[number];

const MISSING: Record<ConfigName, string> = {
  publicAccessBlock: "NoSuchPublicAccessBlockConfiguration",
  ownershipControls: "OwnershipControlsNotFoundError",
  policy: "NoSuchBucketPolicy",
  tagging: "NoSuchTagSet",
  lifecycle: "NoSuchLifecycleConfiguration",
};

/** The proxy's state. */
export interface BucketConfigState {
  /** Stored configuration bodies by bucket, then sub-resource. */
  readonly configs: Map<string, Map<ConfigName, string>>;
  /** Bucket names that "belong to another account". */
  readonly foreign: Set<string>;
  /**
   * The `x-amz-tagging` each object was uploaded with, by `<bucket>/<key>` (s3rver ignores the
   * header on PUT, where real S3 applies it; this is what real S3 would hold).
   */
  readonly objectTagging: Map<string, string>;
}

/** s3rver behind the bucket-configuration proxy. */
export interface SiteS3 extends AsyncDisposable {
  /**
   * Makes upcoming calls of an object operation (`PutObject`, `CopyObject`, `GetObject`,
   * `HeadObject`, `DeleteObject`, `DeleteObjects`, `ListObjectsV2`) answer with an S3 error
   * instead of reaching s3rver, as `AwsFake.fail` does for the other fakes.
   */
  fail(operation: string, failure: FailureSpec): void;
  /**
   * A slow, throttled S3: calls of `operation` on keys under `keyPrefix` get no answer until
   * the hold is released, and then `503 SlowDown` (what S3 answers a client past its request
   * rate, after as long as it likes). Only calls made after this call are held.
   */
  hold(operation: string, keyPrefix: string): S3Hold;
  /** The proxy's URL: use as `AWS_ENDPOINT_URL_S3`. */
  readonly endpoint: string;
  /** The s3rver fixture behind it. */
  readonly s3rver: S3Fixture;
  /** The proxy's state. */
  readonly state: BucketConfigState;
  /** Configuration calls the proxy answered itself (`PutBucketPolicy`, …). */
  readonly calls: FakeCall[];
  /** Whether s3rver holds a bucket. */
  bucketExists(name: string): Promise<boolean>;
  /** Stops the proxy and s3rver. */
  close(): Promise<void>;
}

/** A hold of {@linkcode SiteS3.hold}. */
export interface S3Hold {
  /** How many calls are being held now (their clients still waiting). */
  readonly waiting: number;
  /** How many calls were held in all. */
  readonly held: number;
  /** Answers every held call `503 SlowDown` and holds no more. */
  release(): void;
}

/** The S3 credentials s3rver accepts (it verifies SigV4 against these). */
export const S3RVER_CREDENTIALS = {
  AWS_ACCESS_KEY_ID: "S3RVER",
  AWS_SECRET_ACCESS_KEY: "S3RVER",
} as const;

function s3Error(code: string, status: number, message = code): Response {
  return new Response(
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
    { status, headers: { "content-type": "application/xml" } },
  );
}

const OPERATION: Record<string, Record<ConfigName, string>> = {
  PUT: {
    publicAccessBlock: "PutPublicAccessBlock",
    ownershipControls: "PutBucketOwnershipControls",
    policy: "PutBucketPolicy",
    tagging: "PutBucketTagging",
    lifecycle: "PutBucketLifecycleConfiguration",
  },
  GET: {
    publicAccessBlock: "GetPublicAccessBlock",
    ownershipControls: "GetBucketOwnershipControls",
    policy: "GetBucketPolicy",
    tagging: "GetBucketTagging",
    lifecycle: "GetBucketLifecycleConfiguration",
  },
  DELETE: {
    publicAccessBlock: "DeletePublicAccessBlock",
    ownershipControls: "DeleteBucketOwnershipControls",
    policy: "DeleteBucketPolicy",
    tagging: "DeleteBucketTagging",
    lifecycle: "DeleteBucketLifecycle",
  },
};

/**
 * The object operation a forwarded request is (for `fail()`), or undefined for others.
 *
 * @param method the HTTP method
 * @param parts the path's segments (bucket, then the key's)
 * @param url the request URL
 * @param headers the request headers
 * @returns the operation name
 */
function objectOperation(
  method: string,
  parts: readonly string[],
  url: URL,
  headers: Headers,
): string | undefined {
  if (parts.length === 1) {
    if (method === "POST" && url.searchParams.has("delete")) return "DeleteObjects";
    if (method === "GET" && url.searchParams.get("list-type") === "2") return "ListObjectsV2";
    return undefined;
  }
  if (parts.length < 2) return undefined;
  // The SDK names the operation in an `x-id` parameter; any other one is a sub-resource.
  if ([...url.searchParams.keys()].some((k) => k !== "x-id")) return undefined;
  if (method === "PUT") return headers.has("x-amz-copy-source") ? "CopyObject" : "PutObject";
  return { GET: "GetObject", HEAD: "HeadObject", DELETE: "DeleteObject" }[method];
}

/** Options for {@linkcode startSiteS3}. */
export interface SiteS3Options {
  /**
   * The s3rver to put the proxy in front of (it is closed with the proxy), e.g. one run as a Node
   * subprocess for sites past 1,000 keys (`startNodeS3`). Default: an in-process one.
   */
  readonly upstream?: S3Fixture;
}

/**
 * Starts s3rver and the bucket-configuration proxy in front of it.
 *
 * @param options the s3rver to front (default: a new in-process one)
 * @returns the running pair; `await using` stops both
 * @example
 * ```ts
 * await using s3 = await startSiteS3();
 * const env = { AWS_ENDPOINT_URL_S3: s3.endpoint, ...S3RVER_CREDENTIALS };
 * ```
 */
export async function startSiteS3(options: SiteS3Options = {}): Promise<SiteS3> {
  const s3rver = options.upstream ?? await startS3();
  const failures = new Map<string, { spec: FailureSpec; skip: number; left: number }[]>();
  const holds: {
    operation: string;
    keyPrefix: string;
    held: number;
    waiting: number;
    released: PromiseWithResolvers<void>;
  }[] = [];
  const upstream = new URL(s3rver.endpoint);
  // The proxy's own connection pool, closed with the proxy. With the global `fetch` the
  // keep-alive connections to s3rver lived in the test process's shared pool, outliving this
  // fixture; s3rver's close() (node:http Server.close) waits for every connection it does not
  // count as idle, and under load one such pooled connection made it wait forever: a combined
  // `deno test` run hung in deploy_cli_test / deploy_task_test while each file alone passed.
  const upstreamClient = Deno.createHttpClient({});
  const state: BucketConfigState = {
    configs: new Map(),
    foreign: new Set(),
    objectTagging: new Map(),
  };
  const calls: FakeCall[] = [];
  const bucketExists = async (name: string) => {
    try {
      return (await Deno.stat(join(s3rver.directory, name))).isDirectory;
    } catch {
      return false;
    }
  };

  const handler = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    const parts = url.pathname.split("/").filter((p) => p !== "");
    const bucket = parts.length === 1 ? decodeURIComponent(parts[0]!) : undefined;
    const config = CONFIGS.find((c) => url.searchParams.has(c));
    if (bucket !== undefined && state.foreign.has(bucket)) {
      if (req.method === "HEAD") return new Response(null, { status: 403 });
      if (req.method === "PUT" && [...url.searchParams.keys()].length === 0) {
        return s3Error("BucketAlreadyExists", 409, "The requested bucket name is not available.");
      }
      return s3Error("AccessDenied", 403, "Access Denied");
    }
    if (bucket !== undefined && config !== undefined) {
      const operation = OPERATION[req.method]?.[config];
      if (!operation) return s3Error("MethodNotAllowed", 405);
      const body = req.method === "PUT" ? await req.text() : "";
      calls.push({
        service: "s3",
        operation,
        input: { Bucket: bucket, ...(body ? { body } : {}) },
      });
      if (!(await bucketExists(bucket))) {
        return s3Error("NoSuchBucket", 404, "The specified bucket does not exist");
      }
      const stored = state.configs.get(bucket) ?? new Map<ConfigName, string>();
      state.configs.set(bucket, stored);
      if (req.method === "PUT") {
        if (config === "policy") {
          try {
            JSON.parse(body);
          } catch {
            return s3Error("MalformedPolicy", 400, "Policies must be valid JSON");
          }
        }
        stored.set(config, body);
        return new Response(null, {
          status: config === "policy" || config === "tagging" ? 204 : 200,
        });
      }
      if (req.method === "DELETE") {
        stored.delete(config);
        return new Response(null, { status: 204 });
      }
      const value = stored.get(config);
      if (value === undefined) return s3Error(MISSING[config], 404);
      return new Response(value, {
        headers: { "content-type": config === "policy" ? "application/json" : "application/xml" },
      });
    }
    const keyOf = (segments: readonly string[]) => segments.map(decodeURIComponent).join("/");
    if (req.method === "GET" && parts.length >= 2 && url.searchParams.has("tagging")) {
      const query = new URLSearchParams(state.objectTagging.get(keyOf(parts)) ?? "");
      const tags = [...query].map(([k, v]) =>
        `<Tag><Key>${escapeXml(k)}</Key><Value>${escapeXml(v)}</Value></Tag>`
      ).join("");
      return new Response(
        `<?xml version="1.0" encoding="UTF-8"?><Tagging><TagSet>${tags}</TagSet></Tagging>`,
        { headers: { "content-type": "application/xml" } },
      );
    }
    const operation = objectOperation(req.method, parts, url, req.headers);
    const key = parts.slice(1).map(decodeURIComponent).join("/");
    const hold = holds.find((h) => h.operation === operation && key.startsWith(h.keyPrefix));
    if (hold) {
      hold.held++;
      hold.waiting++;
      await hold.released.promise;
      hold.waiting--;
      await req.body?.cancel();
      return s3Error("SlowDown", 503, "Please reduce your request rate.");
    }
    const injected = operation === undefined ? undefined : failures.get(operation)?.[0];
    if (injected) {
      if (injected.skip > 0) injected.skip--;
      else {
        if (--injected.left <= 0) failures.get(operation!)!.shift();
        const { spec } = injected;
        return s3Error(spec.code, spec.status ?? 400, spec.message ?? spec.code);
      }
    }
    // Everything else goes to s3rver untouched, Host included, so the signature still matches.
    const target = new URL(url.pathname + url.search, upstream);
    const headers = new Headers(req.headers);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const body = hasBody ? await req.arrayBuffer() : undefined;
    const deleteBody = operation === "DeleteObjects" ? new TextDecoder().decode(body) : "";
    const res = await fetch(target, {
      method: req.method,
      headers,
      ...(body ? { body } : {}),
      redirect: "manual",
      client: upstreamClient,
    });
    const tagging = req.headers.get("x-amz-tagging");
    const copySource = req.headers.get("x-amz-copy-source");
    if (res.ok && operation === "CopyObject" && copySource !== null) {
      // Without REPLACE the copy carries the source's tags, as S3's does.
      const replace = req.headers.get("x-amz-tagging-directive") === "REPLACE";
      const source = decodeURIComponent(copySource.replace(/^\//, "").split("?")[0]!);
      const tags = replace ? tagging ?? "" : state.objectTagging.get(source);
      if (tags) state.objectTagging.set(keyOf(parts), tags);
      else state.objectTagging.delete(keyOf(parts));
    } else if (tagging !== null && res.ok && parts.length >= 2) {
      state.objectTagging.set(keyOf(parts), tagging);
    }
    if (res.ok && operation === "DeleteObject") state.objectTagging.delete(keyOf(parts));
    if (res.ok && operation === "DeleteObjects") {
      for (const object of parseXml(deleteBody).children.filter((c) => c.name === "Object")) {
        state.objectTagging.delete(`${bucket}/${textAt(object, "Key")}`);
      }
    }
    if (
      bucket !== undefined && req.method === "DELETE" && res.ok &&
      [...url.searchParams.keys()].length === 0
    ) {
      state.configs.delete(bucket);
    }
    const empty = req.method === "HEAD" || [204, 205, 304].includes(res.status);
    return new Response(empty ? null : await res.arrayBuffer(), {
      status: res.status,
      headers: res.headers,
    });
  };

  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, handler);
  const close = async () => {
    for (const hold of holds.splice(0)) hold.released.resolve(); // nothing waits past the end
    await server.shutdown();
    upstreamClient.close(); // drops the pooled connections, so s3rver sees them end
    await s3rver.close();
  };
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    fail(operation, spec) {
      const queue = failures.get(operation) ?? [];
      queue.push({ spec, skip: spec.after ?? 0, left: spec.times ?? 1 });
      failures.set(operation, queue);
    },
    hold(operation, keyPrefix) {
      const hold = {
        operation,
        keyPrefix,
        held: 0,
        waiting: 0,
        released: Promise.withResolvers<void>(),
      };
      holds.push(hold);
      return {
        get waiting() {
          return hold.waiting;
        },
        get held() {
          return hold.held;
        },
        release() {
          holds.splice(holds.indexOf(hold), 1);
          hold.released.resolve();
        },
      };
    },
    s3rver,
    state,
    calls,
    bucketExists,
    close,
    [Symbol.asyncDispose]: close,
  };
}
