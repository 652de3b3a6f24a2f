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
import { parseArgs } from "node:util";
import { AWS_ENV_VARS, createAwsClientFactory } from "../../../aws/client_factory.ts";
import { AGENT_HOOK_PORT, createHookHandler } from "./hooks.ts";
import { type AgentJob, parseAgentJob } from "./job_description.ts";
import { runAgentJob } from "./run_agent_job.ts";

/** The S3 client for a job, by the same endpoint and credential rules as the CLI's. */
function s3For(job: AgentJob): S3Client {
  const environ: Record<string, string | undefined> = {};
  for (const name of AWS_ENV_VARS) environ[name] = Deno.env.get(name);
  return createAwsClientFactory(environ).client(S3Client, "S3", job.region);
}

const log = (line: string) => console.log(line);

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
    const parsed = parseAgentJob(await Deno.readTextFile(values.job));
    if ("error" in parsed) {
      log(`build:failed:unknown:${parsed.error}`);
      Deno.exit(1);
    }
    const outcome = await runAgentJob(parsed.job, { s3: s3For(parsed.job), log });
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
      (job) => runAgentJob(job, { s3: s3For(job), log }),
      (reason) => log(`build:failed:unknown:${reason}`),
    ),
  );
}
