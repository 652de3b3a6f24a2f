import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import { dirname, join } from "node:path";
import S3rver from "s3rver";

/** A running in-process S3 emulator and how to reach it. */
export interface S3Fixture extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`; pass as the S3 client's `endpoint` with `forcePathStyle`. */
  readonly endpoint: string;
  /** The temporary directory holding the emulator's objects. */
  readonly directory: string;
  /** Stops the server and removes its directory. */
  close(): Promise<void>;
}

/**
 * Starts `s3rver` in-process on a free loopback port with a fresh temp directory.
 *
 * Fine for small fixtures; past 1,000 keys s3rver's listing pagination breaks under Deno (see
 * DESIGN.md), so big-site tests run it as a Node subprocess instead.
 *
 * @param buckets buckets to create up front
 * @returns the fixture; `await using` stops it
 *
 * @example
 * ```ts
 * import { S3Client } from "@aws-sdk/client-s3";
 *
 * await using s3 = await startS3(["site"]);
 * const client = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true, ...testAwsConfig });
 * ```
 */
export async function startS3(buckets: string[] = []): Promise<S3Fixture> {
  const directory = await Deno.makeTempDir({ prefix: "s3rver-" });
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: buckets.map((name) => ({ name, configs: [] })),
  });
  const staging = await Deno.makeTempDir({ prefix: "s3rver-staging-" });
  writeObjectsAtomically((server as unknown as KoaApp).store, staging);
  keepCopyEtags((server as unknown as KoaApp).store);
  supportConditionalWrites(server as unknown as KoaApp);
  const { port } = await server.run() as { port: number };
  const close = async () => {
    // Server.close() stops listening, then waits until every open connection has ended; it
    // closes only the connections it counts as idle. A keep-alive connection a client still
    // holds in its pool (and never closes) would keep it waiting forever, so a fixture's
    // shutdown could hang a whole test run: end them all first.
    (server as unknown as { httpServer?: { closeAllConnections?(): void } }).httpServer
      ?.closeAllConnections?.();
    await server.close();
    await Deno.remove(directory, { recursive: true }).catch(() => {});
    await Deno.remove(staging, { recursive: true }).catch(() => {});
  };
  return { endpoint: `http://127.0.0.1:${port}`, directory, close, [Symbol.asyncDispose]: close };
}

/** Static credentials and region for SDK clients pointed at loopback fakes. */
export const testAwsConfig = {
  region: "us-east-1",
  credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
} as const;

/** The parts of s3rver's Koa app the patches touch. */
interface KoaApp {
  middleware: ((ctx: KoaContext, next: () => Promise<void>) => Promise<void>)[];
  store: FilesystemStore;
}

/** The parts of s3rver's filesystem store the patches touch. */
interface FilesystemStore {
  existsObject(bucket: string, key: string): Promise<boolean>;
  getMetadata(bucket: string, key: string): Promise<{ etag?: string }>;
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: StoredObject): Promise<{ size: number; md5: string }>;
  copyObject(
    srcBucket: string,
    srcKey: string,
    destBucket: string,
    destKey: string,
    replacement: unknown,
  ): Promise<{ etag?: string }>;
}

/** An object s3rver's PutObject hands its store. */
interface StoredObject {
  bucket: string;
  key: string;
  metadata: unknown;
  content: Buffer | AsyncIterable<Uint8Array>;
}

/**
 * Replaces s3rver 3.7.1's PutObject write, which answers before the object is on disk: it
 * resolves on its hashing stream's `finish` (or, for a buffer, right after `end()`), not on
 * the file stream's, and it truncates the object file in place. Under load a GET that follows
 * the PUT read a short file (`state/production.json is not valid JSON`). Here the body is
 * written whole to a staging file, then renamed over the object, before the PUT is answered.
 */
function writeObjectsAtomically(store: FilesystemStore, staging: string): void {
  store.putObject = async (object) => {
    const chunks: Uint8Array[] = [];
    if (Buffer.isBuffer(object.content)) chunks.push(object.content);
    else for await (const chunk of object.content) chunks.push(chunk);
    const content = Buffer.concat(chunks);
    const md5 = createHash("md5").update(content).digest("hex");
    const objectPath = store.getResourcePath(object.bucket, object.key, "object");
    await Deno.mkdir(dirname(objectPath), { recursive: true });
    // The staging directory is on the same filesystem (the temp dir), so the rename is atomic.
    const temporary = join(staging, crypto.randomUUID());
    await Deno.writeFile(temporary, content);
    await Deno.rename(temporary, objectPath);
    await store.putMetadata(object.bucket, object.key, object.metadata, md5);
    return { size: content.length, md5 };
  };
}

/**
 * Fixes s3rver 3.7.1's CopyObject with `x-amz-metadata-directive: REPLACE`: it copies the bytes
 * but keeps the destination's old `.md5` file, so the copy answered (and later listed) the ETag
 * of what the key held before. S3's ETag of a copy is the MD5 of its content (the rollback's
 * restore compares it): carry the source's over.
 */
function keepCopyEtags(store: FilesystemStore): void {
  const copy = store.copyObject.bind(store);
  store.copyObject = async (srcBucket, srcKey, destBucket, destKey, replacement) => {
    const md5 = ((await store.getMetadata(srcBucket, srcKey)).etag ?? "").replaceAll('"', "");
    const out = await copy(srcBucket, srcKey, destBucket, destKey, replacement);
    if (!replacement) return out;
    await store.putMetadata(destBucket, destKey, replacement, md5);
    return await store.getMetadata(destBucket, destKey);
  };
}

interface KoaContext {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  status: number;
  type: string;
  body: unknown;
}

/**
 * Teaches s3rver S3's conditional writes (PutObject with `If-None-Match: *` or `If-Match:
 * <etag>`, DeleteObject with `If-Match: <etag>`, answered 412 `PreconditionFailed` when the
 * condition fails), which s3rver 3.7.1 ignores. The deploy lock relies on them. The check and the write of one key run one at a
 * time, as S3 decides them atomically. Test peer only: production code talks to real S3.
 */
function supportConditionalWrites(app: KoaApp): void {
  const queues = new Map<string, Promise<void>>();
  const conditional = async (ctx: KoaContext, next: () => Promise<void>) => {
    const noneMatch = ctx.headers["if-none-match"];
    const match = ctx.headers["if-match"];
    const deleting = ctx.method === "DELETE";
    if (!(ctx.method === "PUT" || deleting) || (noneMatch === undefined && match === undefined)) {
      return next();
    }
    const [, bucket = "", ...rest] = ctx.path.split("/");
    const key = decodeURIComponent(rest.join("/"));
    const id = `${bucket}/${key}`;
    const previous = queues.get(id) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => release = resolve);
    const tail = previous.then(() => mine);
    queues.set(id, tail);
    await previous;
    try {
      const exists = await app.store.existsObject(bucket, key);
      const etag = exists ? (await app.store.getMetadata(bucket, key)).etag : undefined;
      // A conditional delete of an absent object is a plain delete (S3 answers 204 or 404).
      const failed = (noneMatch === "*" && exists) ||
        (match !== undefined && (deleting ? exists && match !== etag : !exists || match !== etag));
      if (failed) {
        ctx.status = 412;
        ctx.type = "application/xml";
        ctx.body =
          '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>PreconditionFailed</Code>' +
          "<Message>At least one of the pre-conditions you specified did not hold</Message>" +
          `<Condition>${
            noneMatch !== undefined ? "If-None-Match" : "If-Match"
          }</Condition></Error>`;
        return;
      }
      await next();
    } finally {
      release();
      if (queues.get(id) === tail) queues.delete(id);
    }
  };
  app.middleware.unshift(conditional);
}
