/**
 * The site's AWS clients, by name, over the one client factory
 * ({@linkcode createAwsClientFactory}): each is made on first use (a command that never
 * touches IAM never builds an IAM client). Regions per service: CloudFront, ACM, IAM and the
 * CDN log group always us-east-1; S3, the builder log group and Lambda MicroVMs in the site's
 * region. A service without a name here (Route 53, Secrets Manager, …) is reached through
 * `clients.client(Class, "SERVICE", region)`, with the same endpoint and credential rules.
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
import { awsFailure } from "./errors.ts";
import {
  type AwsClientClass,
  type AwsClientFactory,
  createAwsClientFactory,
  type Environ,
} from "./client_factory.ts";

export { AWS_ENV_VARS, type Environ } from "./client_factory.ts";

/** Every client the commands use, made on first access; dispose to release them. */
export interface AwsClients extends Disposable {
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
  /** Lambda MicroVMs in the site's region (builder base image, builder image, builds). */
  readonly microvms: LambdaMicrovmsClient;
  /** The site's region (of `s3`, `logs` and `microvms`). */
  readonly region: string;
  /**
   * Any other SDK client, made once per class, service and region.
   *
   * @param make the SDK client class, e.g. `Route53Client`
   * @param service the SDK's endpoint suffix, e.g. `ROUTE_53` (for `AWS_ENDPOINT_URL_ROUTE_53`)
   * @param region default: the site's region
   */
  client<T extends { destroy(): void }>(
    make: AwsClientClass<T>,
    service: string,
    region?: string,
  ): T;
}

/**
 * The site's clients for one region.
 *
 * @param environ the environment (endpoints, static credentials)
 * @param region the site's `region`
 * @returns the clients, each built on first access
 *
 * @example
 * ```ts
 * import { createAwsClients } from "./clients.ts";
 *
 * using clients = createAwsClients({}, "eu-west-1");
 * if (clients.region !== "eu-west-1") throw new Error("the site's region");
 * clients.s3; // built on first access, destroyed with the rest at the end of the scope
 * ```
 */
export function createAwsClients(environ: Environ, region: string): AwsClients {
  const factory: AwsClientFactory = createAwsClientFactory(environ);
  return {
    region,
    get s3() {
      return factory.client(S3Client, "S3", region);
    },
    get cloudfront() {
      return factory.client(CloudFrontClient, "CLOUDFRONT", CDN_REGION);
    },
    get acm() {
      return factory.client(ACMClient, "ACM", CDN_REGION);
    },
    get iam() {
      return factory.client(IAMClient, "IAM", CDN_REGION);
    },
    get logs() {
      return factory.client(CloudWatchLogsClient, "CLOUDWATCH_LOGS", region);
    },
    get cdnLogs() {
      return factory.client(CloudWatchLogsClient, "CLOUDWATCH_LOGS", CDN_REGION);
    },
    get microvms() {
      return factory.client(LambdaMicrovmsClient, "LAMBDA_MICROVMS", region);
    },
    client: (make, service, r = region) => factory.client(make, service, r),
    [Symbol.dispose]: () => factory.destroy(),
  };
}

/**
 * Looks the AWS account id up with STS `GetCallerIdentity` (what `CliDeps.lookupAccountId`
 * does when `AWS_ACCOUNT_ID` is not set), in `AWS_REGION`, else `AWS_DEFAULT_REGION`, else
 * us-east-1.
 *
 * @param environ the environment (endpoint, region, credentials)
 * @returns the 12-digit account id
 * @throws {DeployError} `aws_credentials_missing`, `aws_access_denied` or `aws_request_failed`
 */
export async function lookupAccountIdWithSts(environ: Environ): Promise<string> {
  const region = environ.AWS_REGION || environ.AWS_DEFAULT_REGION || CDN_REGION;
  using factory = createAwsClientFactory(environ);
  const sts = factory.client(STSClient, "STS", region);
  try {
    const out = await sts.send(new GetCallerIdentityCommand({}));
    if (!out.Account) throw new Error("GetCallerIdentity returned no account");
    return out.Account;
  } catch (err) {
    throw awsFailure(err, { resource: "the caller identity", action: "sts:GetCallerIdentity" });
  }
}
