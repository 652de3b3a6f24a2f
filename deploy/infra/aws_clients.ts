/**
 * The one place the deploy CLI builds AWS SDK clients: region per service (CloudFront, ACM and
 * the CDN log group always in us-east-1), endpoints from `AWS_ENDPOINT_URL_<SERVICE>` /
 * `AWS_ENDPOINT_URL`, static credentials from `AWS_ACCESS_KEY_ID` when set and otherwise the
 * SDK's standard credential chain.
 *
 * Endpoints and static credentials are taken from the injected environment rather than left to
 * the SDK, because in-process runs (tests, embedding) carry their environment in
 * `CliDeps.environ`, not in the process; for the real CLI both are the same variables, so the
 * SDK's own conventions hold either way.
 *
 * @module
 */
import { ACMClient } from "@aws-sdk/client-acm";
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import { IAMClient } from "@aws-sdk/client-iam";
import { LambdaMicrovmsClient } from "@aws-sdk/client-lambda-microvms";
import { S3Client } from "@aws-sdk/client-s3";
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { CDN_REGION } from "../config/names.ts";
import { awsFailure } from "./aws_errors.ts";

/** Environment variables as the CLI sees them. */
export type Environ = Readonly<Record<string, string | undefined>>;

/** Every client the infrastructure commands use. */
export interface AwsClients {
  /** S3 in the site's region (path-style when a custom endpoint is set). */
  readonly s3: S3Client;
  /** CloudFront (global; signed for us-east-1). */
  readonly cloudfront: CloudFrontClient;
  /** ACM in us-east-1, where CloudFront certificates must live. */
  readonly acm: ACMClient;
  /** IAM (global). */
  readonly iam: IAMClient;
  /** CloudWatch Logs in the site's region (builder log group). */
  readonly logs: CloudWatchLogsClient;
  /** CloudWatch Logs in us-east-1 (CDN access-log group). */
  readonly cdnLogs: CloudWatchLogsClient;
  /** Lambda MicroVMs in the site's region (builder base image and builder image). */
  readonly microvms: LambdaMicrovmsClient;
  /** The region of `s3` and `logs`. */
  readonly region: string;
}

/** The SDK service ids' endpoint variable suffixes, as the SDK derives them. */
const ENDPOINT_VARS = {
  s3: "AWS_ENDPOINT_URL_S3",
  cloudfront: "AWS_ENDPOINT_URL_CLOUDFRONT",
  acm: "AWS_ENDPOINT_URL_ACM",
  iam: "AWS_ENDPOINT_URL_IAM",
  logs: "AWS_ENDPOINT_URL_CLOUDWATCH_LOGS",
  sts: "AWS_ENDPOINT_URL_STS",
  microvms: "AWS_ENDPOINT_URL_LAMBDA_MICROVMS",
} as const;

/** Every environment variable this module reads (main.ts reads them one by one under narrow flags). */
export const AWS_ENV_VARS: readonly string[] = [
  ...Object.values(ENDPOINT_VARS),
  "AWS_ENDPOINT_URL",
  "AWS_ENDPOINT_URL_SECRETS_MANAGER",
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
 * @param service the client key
 * @returns the endpoint URL or undefined (the SDK's default endpoint)
 */
export function endpointFor(
  environ: Environ,
  service: keyof typeof ENDPOINT_VARS,
): string | undefined {
  if ((environ.AWS_IGNORE_CONFIGURED_ENDPOINT_URLS ?? "").toLowerCase() === "true") {
    return undefined;
  }
  const value = environ[ENDPOINT_VARS[service]] || environ.AWS_ENDPOINT_URL;
  return value ? value : undefined;
}

interface BaseConfig {
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

function baseConfig(environ: Environ): BaseConfig {
  const accessKeyId = environ.AWS_ACCESS_KEY_ID;
  const secretAccessKey = environ.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) return {}; // the SDK's default chain (profiles, SSO, IMDS…)
  return {
    credentials: {
      accessKeyId,
      secretAccessKey,
      ...(environ.AWS_SESSION_TOKEN ? { sessionToken: environ.AWS_SESSION_TOKEN } : {}),
    },
  };
}

function withEndpoint<T extends object>(config: T, endpoint: string | undefined): T {
  return endpoint === undefined ? config : { ...config, endpoint };
}

/**
 * Builds the clients for one site environment.
 *
 * @param environ the environment (endpoints, static credentials)
 * @param region the site's `region`
 * @returns the clients
 *
 * @example
 * ```ts
 * const clients = createAwsClients(ctx.environ, site.config.region);
 * ```
 */
export function createAwsClients(environ: Environ, region: string): AwsClients {
  const base = baseConfig(environ);
  const s3Endpoint = endpointFor(environ, "s3");
  return {
    region,
    // A custom endpoint (s3rver, MinIO, LocalStack) rarely serves virtual-hosted buckets.
    s3: new S3Client(
      withEndpoint({ ...base, region, forcePathStyle: s3Endpoint !== undefined }, s3Endpoint),
    ),
    cloudfront: new CloudFrontClient(
      withEndpoint({ ...base, region: CDN_REGION }, endpointFor(environ, "cloudfront")),
    ),
    acm: new ACMClient(withEndpoint({ ...base, region: CDN_REGION }, endpointFor(environ, "acm"))),
    iam: new IAMClient(withEndpoint({ ...base, region: CDN_REGION }, endpointFor(environ, "iam"))),
    logs: new CloudWatchLogsClient(withEndpoint({ ...base, region }, endpointFor(environ, "logs"))),
    cdnLogs: new CloudWatchLogsClient(
      withEndpoint({ ...base, region: CDN_REGION }, endpointFor(environ, "logs")),
    ),
    microvms: new LambdaMicrovmsClient(
      withEndpoint({ ...base, region }, endpointFor(environ, "microvms")),
    ),
  };
}

/**
 * Looks the AWS account id up with STS `GetCallerIdentity` (what `CliDeps.lookupAccountId`
 * does when `AWS_ACCOUNT_ID` is not set).
 *
 * @param environ the environment (endpoint, region, credentials)
 * @returns the 12-digit account id
 * @throws {DeployError} `aws_credentials_missing`, `aws_access_denied` or `aws_request_failed`
 */
export async function lookupAccountIdWithSts(environ: Environ): Promise<string> {
  const region = environ.AWS_REGION || environ.AWS_DEFAULT_REGION || CDN_REGION;
  const sts = new STSClient(
    withEndpoint({ ...baseConfig(environ), region }, endpointFor(environ, "sts")),
  );
  try {
    const out = await sts.send(new GetCallerIdentityCommand({}));
    if (!out.Account) throw new Error("GetCallerIdentity returned no account");
    return out.Account;
  } catch (err) {
    throw awsFailure(err, { resource: "the caller identity", action: "sts:GetCallerIdentity" });
  } finally {
    sts.destroy();
  }
}

/**
 * Releases every client's sockets (keeps test sanitizers and short CLI runs clean).
 *
 * @param clients the clients
 */
export function destroyAwsClients(clients: AwsClients): void {
  for (
    const c of [
      clients.s3,
      clients.cloudfront,
      clients.acm,
      clients.iam,
      clients.logs,
      clients.cdnLogs,
      clients.microvms,
    ]
  ) {
    c.destroy();
  }
}
