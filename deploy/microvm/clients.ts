/**
 * The AWS clients the MicroVM builder and the `history`/`logs`/`rollback` commands use, built
 * from the region and the environment the CLI may read (`AWS_ENDPOINT_URL_<SERVICE>`,
 * `AWS_ENDPOINT_URL`, static credentials), never from the process environment directly.
 *
 * @module
 */
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import { LambdaMicrovmsClient } from "@aws-sdk/client-lambda-microvms";
import { S3Client } from "@aws-sdk/client-s3";

/** The clients. */
export interface BuildClients {
  /** Lambda MicroVMs, in the site's region. */
  readonly microvms: LambdaMicrovmsClient;
  /** CloudWatch Logs, in the site's region (the builder log group lives there). */
  readonly logs: CloudWatchLogsClient;
  /** S3, in the site's region. */
  readonly s3: S3Client;
  /** CloudFront (global; addressed in us-east-1). */
  readonly cloudfront: CloudFrontClient;
}

type Environ = Readonly<Record<string, string | undefined>>;

/**
 * The endpoint override for one service: `AWS_ENDPOINT_URL_<SERVICE>`, else
 * `AWS_ENDPOINT_URL`, as the SDKs define them.
 *
 * @param environ environment variables
 * @param service the service's env suffix, e.g. `LAMBDA_MICROVMS`
 * @returns the endpoint, or undefined for the default
 */
export function endpointFor(environ: Environ, service: string): string | undefined {
  return environ[`AWS_ENDPOINT_URL_${service}`] || environ.AWS_ENDPOINT_URL || undefined;
}

function common(environ: Environ, region: string, service: string) {
  const endpoint = endpointFor(environ, service);
  const id = environ.AWS_ACCESS_KEY_ID;
  const secret = environ.AWS_SECRET_ACCESS_KEY;
  return {
    region,
    ...(endpoint ? { endpoint } : {}),
    // Static keys from the CLI's environment; otherwise the SDK's default provider chain.
    ...(id && secret
      ? {
        credentials: {
          accessKeyId: id,
          secretAccessKey: secret,
          ...(environ.AWS_SESSION_TOKEN ? { sessionToken: environ.AWS_SESSION_TOKEN } : {}),
        },
      }
      : {}),
  };
}

/**
 * Creates the clients for a site region.
 *
 * @param region the site's `region`
 * @param environ the environment the CLI may read
 * @returns the clients
 *
 * @example
 * ```ts
 * const clients = createBuildClients(site.config.region, ctx.environ);
 * ```
 */
export function createBuildClients(region: string, environ: Environ): BuildClients {
  const s3Common = common(environ, region, "S3");
  return {
    microvms: new LambdaMicrovmsClient(common(environ, region, "LAMBDA_MICROVMS")),
    logs: new CloudWatchLogsClient(common(environ, region, "CLOUDWATCH_LOGS")),
    s3: new S3Client({ ...s3Common, ...("endpoint" in s3Common ? { forcePathStyle: true } : {}) }),
    cloudfront: new CloudFrontClient(common(environ, "us-east-1", "CLOUDFRONT")),
  };
}
