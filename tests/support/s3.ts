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
 * await using s3 = await startS3(["site"]);
 * const client = new S3Client({ endpoint: s3.endpoint, forcePathStyle: true, ...testCredentials });
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
  };
  return { endpoint: `http://127.0.0.1:${port}`, directory, close, [Symbol.asyncDispose]: close };
}

/** Static credentials and region for SDK clients pointed at loopback fakes. */
export const testAwsConfig = {
  region: "us-east-1",
  credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
} as const;
