/**
 * The one way the deploy tool builds AWS SDK clients, for every command and the builder agent:
 * each client is made on first use, once per service and region, with the endpoint and
 * credentials resolved by the SDK's own conventions:
 *
 * - endpoint: `AWS_ENDPOINT_URL_<SERVICE>`, else `AWS_ENDPOINT_URL`; neither when
 *   `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is `true`;
 * - credentials: `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` (/ `AWS_SESSION_TOKEN`) when set,
 *   else the SDK's default chain (`AWS_PROFILE` and the shared files, SSO, instance roles).
 *
 * Endpoints and static credentials are read from the injected environment rather than left to
 * the SDK, because in-process runs (tests, embedding) carry their environment in
 * `CliDeps.environ`, not in the process; for the real CLI both are the same variables.
 *
 * This module imports no SDK client package: callers pass the client class, so a program
 * (the builder agent) fetches only the SDK packages it uses.
 *
 * @module
 */

/** Environment variables as the tool sees them. */
export type Environ = Readonly<Record<string, string | undefined>>;

/** The configuration every SDK client constructor accepts from this factory. */
export interface AwsClientConfig {
  /** The region the client signs for. */
  region: string;
  /** An endpoint override (emulators, tests), when configured. */
  endpoint?: string;
  /** Static credentials, when the environment names them. */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** S3 only: path-style addressing, set whenever an endpoint override is used. */
  forcePathStyle?: boolean;
}

/** An SDK client class (`S3Client`, `Route53Client`, …). */
export type AwsClientClass<T> = new (config: AwsClientConfig) => T;

/** The environment variables this module reads (main.ts reads them one by one under narrow flags). */
export const AWS_ENV_VARS: readonly string[] = [
  "AWS_ENDPOINT_URL",
  "AWS_ENDPOINT_URL_S3",
  "AWS_ENDPOINT_URL_CLOUDFRONT",
  "AWS_ENDPOINT_URL_CLOUDFRONT_KEYVALUESTORE",
  "AWS_ENDPOINT_URL_ACM",
  "AWS_ENDPOINT_URL_IAM",
  "AWS_ENDPOINT_URL_CLOUDWATCH_LOGS",
  "AWS_ENDPOINT_URL_STS",
  "AWS_ENDPOINT_URL_LAMBDA_MICROVMS",
  "AWS_ENDPOINT_URL_SECRETS_MANAGER",
  // The preview group's and the analytics plugin's services.
  "AWS_ENDPOINT_URL_ROUTE_53",
  "AWS_ENDPOINT_URL_S3TABLES",
  "AWS_ENDPOINT_URL_GLUE",
  "AWS_ENDPOINT_URL_LAMBDA",
  "AWS_ENDPOINT_URL_FIREHOSE",
  "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS",
  "AWS_ACCESS_KEY_ID",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "AWS_REGION",
  "AWS_DEFAULT_REGION",
  "AWS_PROFILE",
  "AWS_EC2_METADATA_DISABLED",
];

/**
 * The endpoint override for one service: `AWS_ENDPOINT_URL_<SERVICE>`, else `AWS_ENDPOINT_URL`,
 * none when `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS` is true.
 *
 * @param environ the environment
 * @param service the SDK's endpoint suffix for the service, e.g. `S3`, `LAMBDA_MICROVMS`
 * @returns the endpoint URL, or undefined for the SDK's default endpoint
 */
export function endpointFor(environ: Environ, service: string): string | undefined {
  if ((environ.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS ?? "").toLowerCase() === "true") {
    return undefined;
  }
  return environ[`AWS_ENDPOINT_URL_${service}`] || environ.AWS_ENDPOINT_URL || undefined;
}

/**
 * The constructor configuration for one service and region (pure).
 *
 * @param environ the environment (endpoints, static credentials)
 * @param service the SDK's endpoint suffix, e.g. `S3`
 * @param region the region to sign for
 * @returns the configuration
 */
export function clientConfig(environ: Environ, service: string, region: string): AwsClientConfig {
  const endpoint = endpointFor(environ, service);
  const accessKeyId = environ.AWS_ACCESS_KEY_ID;
  const secretAccessKey = environ.AWS_SECRET_ACCESS_KEY;
  return {
    region,
    ...(endpoint ? { endpoint } : {}),
    // A custom S3 endpoint (s3rver, MinIO, LocalStack) rarely serves virtual-hosted buckets.
    ...(endpoint && service === "S3" ? { forcePathStyle: true } : {}),
    ...(accessKeyId && secretAccessKey
      ? {
        credentials: {
          accessKeyId,
          secretAccessKey,
          ...(environ.AWS_SESSION_TOKEN ? { sessionToken: environ.AWS_SESSION_TOKEN } : {}),
        },
      }
      : {}),
  };
}

/** Builds clients on first use and releases them all at once. */
export interface AwsClientFactory extends Disposable {
  /**
   * The client of `make`'s class for `service` in `region`, made on the first call and reused.
   *
   * @param make the SDK client class
   * @param service the SDK's endpoint suffix (`S3`, `ROUTE_53`, `SECRETS_MANAGER`, …)
   * @param region the region
   */
  client<T extends { destroy(): void }>(
    make: AwsClientClass<T>,
    service: string,
    region: string,
  ): T;
  /** Releases every client made so far (keeps test sanitizers and short CLI runs clean). */
  destroy(): void;
}

/**
 * Creates a client factory over an environment.
 *
 * @param environ the environment (endpoints, static credentials)
 * @returns the factory
 *
 * @example
 * ```ts
 * import { S3Client } from "@aws-sdk/client-s3";
 * import { createAwsClientFactory } from "./client_factory.ts";
 *
 * using aws = createAwsClientFactory({ AWS_ENDPOINT_URL_S3: "http://127.0.0.1:4566" });
 * const s3 = aws.client(S3Client, "S3", "eu-west-1");
 * if (aws.client(S3Client, "S3", "eu-west-1") !== s3) throw new Error("one client per region");
 * ```
 */
export function createAwsClientFactory(environ: Environ): AwsClientFactory {
  const made = new Map<string, { destroy(): void }>();
  const destroy = () => {
    for (const c of made.values()) c.destroy();
    made.clear();
  };
  return {
    client<T extends { destroy(): void }>(
      make: AwsClientClass<T>,
      service: string,
      region: string,
    ): T {
      const key = `${make.name}:${service}:${region}`;
      let c = made.get(key) as T | undefined;
      if (c === undefined) {
        c = new make(clientConfig(environ, service, region));
        made.set(key, c);
      }
      return c;
    },
    destroy,
    [Symbol.dispose]: destroy,
  };
}
