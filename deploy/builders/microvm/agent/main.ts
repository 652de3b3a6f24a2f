// deno-lint-ignore-file no-console -- the agent's log is its stdout, which the MicroVM ships to CloudWatch
/**
 * The build agent baked into the builder image. Two modes:
 *
 * - `deno run <flags> main.ts serve [--port 8080] [--hostname 0.0.0.0]`: the hook listener
 *   inside the MicroVM; the run hook (`POST /run`) carries the job. The image's `CMD` (see
 *   `dockerfile.ts`) runs this with the narrow flags of `agentPermissionFlags`.
 * - `deno run <flags> main.ts run --job job.json`: runs one job and exits 0 (done) or 1 (failed),
 *   for debugging an image by hand.
 *
 * Every log line goes to stdout; the last line of a job is its marker
 * (`build:done:<id>` / `build:failed:<id>:<reason>`).
 *
 * @module
 */
import { S3Client } from "@aws-sdk/client-s3";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { type SecretReader, secretsManagerReader } from "../../../build_settings/build_secrets.ts";
import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import { CDN_REGION } from "../../../config/names.ts";
import { routingDeps } from "../../../routing/rules_store_client.ts";
import type { RoutingDeps } from "../../../routing/publish_routing.ts";
import { parseArgs } from "node:util";
import { AWS_ENV_VARS, createAwsClientFactory } from "../../../aws/client_factory.ts";
import { AGENT_HOOK_PORT, createHookHandler } from "./hooks.ts";
import { DeployError } from "../../../errors.ts";
import { fromWire, type JobInput } from "../../../job/job_input.ts";
import { type AgentOutcome, runAgentJob } from "./run_agent_job.ts";
import { failedMarker } from "./markers.ts";

/** The job's clients, by the same endpoint and credential rules as the CLI's. */
function depsFor(
  region: string,
): { s3: S3Client; routing: RoutingDeps; readSecret: SecretReader } {
  const environ: Record<string, string | undefined> = {};
  for (const name of AWS_ENV_VARS) environ[name] = Deno.env.get(name);
  const factory = createAwsClientFactory(environ);
  return {
    s3: factory.client(S3Client, "S3", region),
    routing: routingDeps({
      cloudfront: factory.client(CloudFrontClient, "CLOUDFRONT", CDN_REGION),
      client: (make, service, region = CDN_REGION) => factory.client(make, service, region),
    }),
    // `build.secrets`, read with the builder role when the job names some.
    readSecret: (name) =>
      secretsManagerReader(factory.client(SecretsManagerClient, "SECRETS_MANAGER", region))(name),
  };
}

const log = (line: string) => console.log(line);

/** Runs one job with clients for its bucket's region (which the CLI always sends). */
function runInVm(job: JobInput): Promise<AgentOutcome> {
  const region = job.target.region;
  if (region === undefined) {
    const reason = "build_failed: the job has no target.region";
    log(failedMarker(job.buildId, reason));
    return Promise.resolve({ ok: false, reason });
  }
  return runAgentJob(job, { ...depsFor(region), log });
}

if (import.meta.main) {
  const { positionals, values } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: { port: { type: "string" }, hostname: { type: "string" }, job: { type: "string" } },
  });
  const mode = positionals[0] ?? "serve";
  if (mode === "run") {
    if (!values.job) {
      console.error("usage: main.ts run --job job.json");
      Deno.exit(2);
    }
    let job: JobInput;
    try {
      job = fromWire(await Deno.readTextFile(values.job));
    } catch (err) {
      if (!(err instanceof DeployError)) throw err;
      log(`build:failed:unknown:${err.message}`);
      Deno.exit(1);
    }
    const outcome = await runInVm(job);
    Deno.exit(outcome.ok ? 0 : 1);
  }
  Deno.serve(
    {
      port: Number(values.port ?? AGENT_HOOK_PORT),
      hostname: values.hostname ?? "0.0.0.0",
      // The bound port, not the requested one: `--port 0` picks a free port.
      onListen: ({ port }) => log(`agent: hook listener on port ${port}`),
    },
    createHookHandler(
      runInVm,
      (reason) => log(`build:failed:unknown:${reason}`),
    ),
  );
}
