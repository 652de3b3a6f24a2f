/**
 * s3rver with the bucket-configuration APIs it lacks: a loopback proxy in front of it that
 * answers `?publicAccessBlock`, `?ownershipControls`, `?policy`, `?tagging` and `?lifecycle` on buckets
 * itself (in S3's REST-XML wire format, echoing back what the SDK sent) and forwards every
 * other request, Host header included so SigV4 signatures still verify, to s3rver.
 *
 * It can also pretend a bucket name belongs to another account (`foreign`): `HeadBucket`
 * answers 403 and `CreateBucket` `BucketAlreadyExists`, as real S3 does.
 *
 * @module
 */
import { join } from "node:path";
import { type S3Fixture, startS3 } from "../support/s3.ts";
import type { FakeCall } from "./server.ts";

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
 * Starts s3rver and the bucket-configuration proxy in front of it.
 *
 * @returns the running pair; `await using` stops both
 * @example
 * ```ts
 * await using s3 = await startSiteS3();
 * const env = { AWS_ENDPOINT_URL_S3: s3.endpoint, ...S3RVER_CREDENTIALS };
 * ```
 */
export async function startSiteS3(): Promise<SiteS3> {
  const s3rver = await startS3();
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
    // Everything else goes to s3rver untouched, Host included, so the signature still matches.
    const target = new URL(url.pathname + url.search, upstream);
    const headers = new Headers(req.headers);
    const hasBody = req.method !== "GET" && req.method !== "HEAD";
    const res = await fetch(target, {
      method: req.method,
      headers,
      ...(hasBody ? { body: await req.arrayBuffer() } : {}),
      redirect: "manual",
      client: upstreamClient,
    });
    const tagging = req.headers.get("x-amz-tagging");
    if (tagging !== null && res.ok && parts.length >= 2) {
      state.objectTagging.set(parts.map(decodeURIComponent).join("/"), tagging);
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
    await server.shutdown();
    upstreamClient.close(); // drops the pooled connections, so s3rver sees them end
    await s3rver.close();
  };
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    s3rver,
    state,
    calls,
    bucketExists,
    close,
    [Symbol.asyncDispose]: close,
  };
}
