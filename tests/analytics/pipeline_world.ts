/**
 * The analytics pipeline on the infra world: a bootstrapped site (in eu-west-1) and the
 * pipeline's clients, facts and run pointed at the loopback fakes.
 *
 * @module
 */
import { CloudWatchLogsClient } from "@aws-sdk/client-cloudwatch-logs";
import { FirehoseClient } from "@aws-sdk/client-firehose";
import { GlueClient } from "@aws-sdk/client-glue";
import { IAMClient } from "@aws-sdk/client-iam";
import { LambdaClient } from "@aws-sdk/client-lambda";
import { S3Client } from "@aws-sdk/client-s3";
import { S3TablesClient } from "@aws-sdk/client-s3tables";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { AnalyticsClients } from "../../analytics/pipeline/facts.ts";
import { testFacts } from "../../analytics/pipeline/_test_facts.ts";
import type { PipelineRun } from "../../analytics/pipeline/run.ts";
import { S3RVER_CREDENTIALS } from "../fakes/s3_bucket_config.ts";
import { ACCOUNT, type InfraWorld } from "../deploy/infra_world.ts";

/** The site bucket of the world's `production` environment. */
export const SITE_BUCKET = `production-blog-${ACCOUNT}`;

/**
 * The pipeline's clients on the world's fakes (us-east-1), disposed together.
 *
 * @param world the running world
 * @returns the clients and the site bucket's S3 client
 */
export function pipelineClients(
  world: InfraWorld,
): AnalyticsClients & { siteS3: S3Client } & Disposable {
  const base = {
    region: "us-east-1",
    credentials: { accessKeyId: "FAKEACCESSKEY", secretAccessKey: "FAKESECRET" },
    maxAttempts: 1,
  };
  const e = world.aws.endpointEnv;
  const s3Config = {
    ...base,
    endpoint: world.s3.endpoint,
    forcePathStyle: true,
    credentials: {
      accessKeyId: S3RVER_CREDENTIALS.AWS_ACCESS_KEY_ID,
      secretAccessKey: S3RVER_CREDENTIALS.AWS_SECRET_ACCESS_KEY,
    },
  };
  const clients = {
    s3tables: new S3TablesClient({ ...base, endpoint: e.AWS_ENDPOINT_URL_S3TABLES! }),
    glue: new GlueClient({ ...base, endpoint: e.AWS_ENDPOINT_URL_GLUE! }),
    secrets: new SecretsManagerClient({ ...base, endpoint: e.AWS_ENDPOINT_URL_SECRETS_MANAGER! }),
    lambda: new LambdaClient({ ...base, endpoint: e.AWS_ENDPOINT_URL_LAMBDA! }),
    firehose: new FirehoseClient({ ...base, endpoint: e.AWS_ENDPOINT_URL_FIREHOSE! }),
    iam: new IAMClient({ ...base, endpoint: e.AWS_ENDPOINT_URL_IAM! }),
    logs: new CloudWatchLogsClient({ ...base, endpoint: e.AWS_ENDPOINT_URL_CLOUDWATCH_LOGS! }),
    s3: new S3Client(s3Config),
    siteS3: new S3Client({ ...s3Config, region: "eu-west-1" }),
  };
  return {
    ...clients,
    [Symbol.dispose]() {
      for (const c of Object.values(clients)) c.destroy();
    },
  };
}

/**
 * A pipeline run on the world (no real sleeping).
 *
 * @param clients the clients
 * @param notes collects the run's notes
 * @returns the run
 */
export function pipelineRun(
  clients: ReturnType<typeof pipelineClients>,
  notes: string[] = [],
): PipelineRun {
  return {
    clients,
    facts: testFacts(),
    state: { s3: clients.siteS3, bucket: SITE_BUCKET },
    sleep: () => Promise.resolve(),
    clock: { now: () => Date.now() },
    note: (line) => notes.push(line),
  };
}
