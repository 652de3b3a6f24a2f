/**
 * Starts every AWS fake at once, wired together as the real services are (CloudFront refuses
 * unissued ACM certificates; ACM reports certificates in use by a distribution), and gives the
 * environment a CLI subprocess needs to reach them.
 *
 * @module
 */

import { type AcmFakeOptions, type AcmFakeState, startAcmFake } from "./acm.ts";
import { type FirehoseFakeState, startFirehoseFake } from "./firehose.ts";
import { type GlueFakeState, startGlueFake } from "./glue.ts";
import { type LambdaFakeState, startLambdaFake } from "./lambda.ts";
import { type S3TablesFakeState, startS3TablesFake } from "./s3tables.ts";
import {
  type CloudFrontFakeOptions,
  type CloudFrontFakeState,
  startCloudFrontFake,
} from "./cloudfront.ts";
import { type IamFakeState, startIamFake } from "./iam.ts";
import { type LogsFakeState, startLogsFake } from "./logs.ts";
import { type MicrovmsFakeOptions, type MicrovmsFakeState, startMicrovmsFake } from "./microvms.ts";
import type { AwsFake, FakeCall } from "./server.ts";
import { type SecretsManagerFakeState, startSecretsManagerFake } from "./secrets_manager.ts";
import { startStsFake, type StsFakeState } from "./sts.ts";
import { type Route53FakeOptions, type Route53FakeState, startRoute53Fake } from "./route53.ts";
import { textAt } from "./xml.ts";
import { type CloudFrontKvsFakeState, startCloudFrontKvsFake } from "./cloudfront_kvs.ts";

/** Options for {@link startAwsFakes}; per-service options pass through. */
export interface AwsFakesOptions {
  /** The account every fake reports (default `123456789012`). */
  accountId?: string;
  /** The region for Logs and MicroVM ARNs (default `us-east-1`). */
  region?: string;
  /** An S3 endpoint (e.g. `startS3().endpoint`) to include as `AWS_ENDPOINT_URL_S3`. */
  s3Endpoint?: string;
  /** CloudFront options (the certificate lookup is wired to the ACM fake unless given). */
  cloudfront?: Omit<CloudFrontFakeOptions, "accountId">;
  /** ACM options (the in-use lookup is wired to the CloudFront fake unless given). */
  acm?: Omit<AcmFakeOptions, "accountId">;
  /** MicroVMs options (e.g. `onRun` to simulate the build). */
  microvms?: Omit<MicrovmsFakeOptions, "accountId" | "region">;
  /** Route 53 options (change propagation). */
  route53?: Route53FakeOptions;
  /**
   * ACM issues a certificate only once a Route 53 zone of the fake holds its validation CNAME,
   * as the real services behave (default: ACM's own `issueAfterDescribes` timing).
   */
  acmValidatesThroughRoute53?: boolean;
  /** Clock in ms for Logs and MicroVMs (default `Date.now`). */
  now?: () => number;
}

/** All fakes, their environment, and a shared view of the calls. */
export interface AwsFakes extends AsyncDisposable {
  /** The CloudFront fake. */
  readonly cloudfront: AwsFake<CloudFrontFakeState>;
  /** The KeyValueStore data plane of the CloudFront fake's stores. */
  readonly cloudfrontKvs: AwsFake<CloudFrontKvsFakeState>;
  /** The ACM fake. */
  readonly acm: AwsFake<AcmFakeState>;
  /** The IAM fake. */
  readonly iam: AwsFake<IamFakeState>;
  /** The CloudWatch Logs fake. */
  readonly logs: AwsFake<LogsFakeState>;
  /** The STS fake. */
  readonly sts: AwsFake<StsFakeState>;
  /** The Lambda MicroVMs fake. */
  readonly microvms: AwsFake<MicrovmsFakeState>;
  /** The Secrets Manager fake (the `pds` secret; the analytics salt). */
  readonly secretsManager: AwsFake<SecretsManagerFakeState>;
  /** The S3 Tables fake (us-east-1). */
  readonly s3tables: AwsFake<S3TablesFakeState>;
  /** The Glue fake (us-east-1). */
  readonly glue: AwsFake<GlueFakeState>;
  /** The Lambda fake (us-east-1). */
  readonly lambda: AwsFake<LambdaFakeState>;
  /** The Firehose fake (us-east-1). */
  readonly firehose: AwsFake<FirehoseFakeState>;
  /** The Route 53 fake (no zone until a test adds one). */
  readonly route53: AwsFake<Route53FakeState>;
  /** `AWS_ENDPOINT_URL_<SERVICE>` for every fake (and S3 when given). */
  readonly endpointEnv: Record<string, string>;
  /**
   * `endpointEnv` plus static test credentials, `AWS_REGION`, and settings that keep the SDK
   * off the network (no IMDS): what a CLI subprocess under test needs.
   */
  readonly env: Record<string, string>;
  /** Every call to every fake, ordered per fake (service by service). */
  allCalls(): FakeCall[];
  /** Stops every fake. */
  close(): Promise<void>;
}

/**
 * Starts the CloudFront, ACM, IAM, Logs, STS, MicroVMs, Secrets Manager and Route 53 fakes, and
 * the analytics services (S3 Tables, Glue, Lambda, Firehose; us-east-1), on loopback.
 *
 * @param options account, region, S3 endpoint, per-service options
 * @returns the fakes; `await using` stops them all
 * @example
 * ```ts
 * import { startS3 } from "../support/s3.ts";
 *
 * await using s3 = await startS3();
 * await using aws = startAwsFakes({ s3Endpoint: s3.endpoint });
 * const cmd = new Deno.Command("deno", { args: ["task", "deploy", "bootstrap"], env: aws.env });
 * ```
 */
export function startAwsFakes(options: AwsFakesOptions = {}): AwsFakes {
  const accountId = options.accountId ?? "123456789012";
  const region = options.region ?? "us-east-1";
  const now = options.now;
  // ACM and CloudFront look each other up lazily, so each can start first.
  const linked: { cloudfront?: CloudFrontFakeState } = {};
  const route53 = startRoute53Fake({
    ...(now ? { now: () => new Date(now()) } : {}),
    ...options.route53,
  });
  const inRoute53 = (rr: { name: string; value: string }) =>
    [...route53.state.zones.values()].some((z) =>
      z.records.some((r) => r.type === "CNAME" && r.name === rr.name && r.values[0] === rr.value)
    );
  const acm = startAcmFake({
    ...(options.acmValidatesThroughRoute53 ? { dnsValidated: inRoute53 } : {}),
    accountId,
    inUseBy: (arn) =>
      [...(linked.cloudfront?.distributions.values() ?? [])]
        .filter((d) => textAt(d.config, "ViewerCertificate/ACMCertificateArn") === arn)
        .map((d) => d.arn),
    ...(now ? { now: () => new Date(now()) } : {}),
    ...options.acm,
  });
  const cloudfront = startCloudFrontFake({
    accountId,
    certificateStatus: (arn) => acm.state.certificates.get(arn)?.status,
    ...(now ? { now: () => new Date(now()) } : {}),
    ...options.cloudfront,
  });
  linked.cloudfront = cloudfront.state;
  const cloudfrontKvs = startCloudFrontKvsFake(cloudfront.state.keyValueStores);
  const iam = startIamFake({ accountId, ...(now ? { now: () => new Date(now()) } : {}) });
  // The analytics services live in us-east-1 whatever the site's region (ARNs say so).
  const analytics = { accountId, region: "us-east-1" };
  // Lambda and Firehose may assume a role only once IAM has it, as right after CreateRole.
  const roleExists = (arn: string) => [...iam.state.roles.values()].some((r) => r.arn === arn);
  const s3tables = startS3TablesFake(analytics);
  const glue = startGlueFake(analytics);
  const lambda = startLambdaFake({ ...analytics, roleAssumable: roleExists });
  const firehose = startFirehoseFake({ ...analytics, roleAssumable: roleExists });
  const logs = startLogsFake({
    accountId,
    region,
    ...(now ? { now } : {}),
    firehoseStreamExists: (arn) =>
      [...firehose.state.streams.values()].some((stream) => stream.arn === arn),
  });
  const sts = startStsFake({ accountId });
  const microvms = startMicrovmsFake({
    accountId,
    region,
    ...(now ? { now } : {}),
    ...options.microvms,
  });
  const secretsManager = startSecretsManagerFake({ accountId, region, ...(now ? { now } : {}) });

  const endpointEnv: Record<string, string> = {
    AWS_ENDPOINT_URL_CLOUDFRONT: cloudfront.endpoint,
    AWS_ENDPOINT_URL_CLOUDFRONT_KEYVALUESTORE: cloudfrontKvs.endpoint,
    AWS_ENDPOINT_URL_ACM: acm.endpoint,
    AWS_ENDPOINT_URL_IAM: iam.endpoint,
    AWS_ENDPOINT_URL_CLOUDWATCH_LOGS: logs.endpoint,
    AWS_ENDPOINT_URL_STS: sts.endpoint,
    AWS_ENDPOINT_URL_LAMBDA_MICROVMS: microvms.endpoint,
    AWS_ENDPOINT_URL_SECRETS_MANAGER: secretsManager.endpoint,
    AWS_ENDPOINT_URL_S3TABLES: s3tables.endpoint,
    AWS_ENDPOINT_URL_GLUE: glue.endpoint,
    AWS_ENDPOINT_URL_LAMBDA: lambda.endpoint,
    AWS_ENDPOINT_URL_FIREHOSE: firehose.endpoint,
    AWS_ENDPOINT_URL_ROUTE_53: route53.endpoint,
    ...(options.s3Endpoint ? { AWS_ENDPOINT_URL_S3: options.s3Endpoint } : {}),
  };
  const env: Record<string, string> = {
    ...endpointEnv,
    AWS_REGION: region,
    AWS_ACCESS_KEY_ID: "FAKEACCESSKEY",
    AWS_SECRET_ACCESS_KEY: "FAKESECRET",
    AWS_EC2_METADATA_DISABLED: "true",
  };
  const all = [
    cloudfront,
    cloudfrontKvs,
    acm,
    iam,
    logs,
    sts,
    microvms,
    secretsManager,
    route53,
    s3tables,
    glue,
    lambda,
    firehose,
  ];
  const close = async () => {
    await Promise.all(all.map((f) => f.close()));
  };
  return {
    cloudfront,
    cloudfrontKvs,
    acm,
    iam,
    logs,
    sts,
    microvms,
    secretsManager,
    s3tables,
    glue,
    lambda,
    firehose,
    route53,
    endpointEnv,
    env,
    allCalls: () => all.flatMap((f) => f.calls),
    close,
    [Symbol.asyncDispose]: close,
  };
}
