/**
 * A bootstrapped world whose MicroVMs run the real agent (the fake's `onRun` plays the VM by
 * running `runAgentJob` against the same s3rver), and a CLI whose deploy commands use a
 * recording keep-alive: what the MicroVM end-to-end tests share.
 *
 * @module
 */
import assert from "node:assert/strict";
import { LambdaMicrovmsClient } from "@aws-sdk/client-lambda-microvms";
import { sleep, systemClock } from "@org/shared";
import { type AwsClients, createAwsClients } from "../../deploy/aws/clients.ts";
import { routingDeps } from "../../deploy/routing/rules_store_client.ts";
import type { MicrovmSeams } from "../../deploy/builders/create_builder.ts";
import { runCli } from "../../deploy/cli/run.ts";
import type { Command } from "../../deploy/command.ts";
import { captureCli, TEST_DEPLOYED_WAIT } from "../../deploy/cli/test_deps.ts";
import { createDeployCommand } from "../../deploy/commands/deploy.ts";
import { createPreviewDeployCommand } from "../../deploy/commands/preview/index.ts";
import { COMMAND_TABLE } from "../../deploy/commands/table.ts";
import { lookupAccountIdWithSts } from "../../deploy/aws/clients.ts";
import { createKeepAlive } from "../../deploy/builders/microvm/keep_alive.ts";
import type { AwsFakesOptions } from "../fakes/aws.ts";
import { type InfraWorld, siteS3, startInfraWorld } from "./infra_world.ts";
import { writeSiteRepo } from "./site_repo.ts";
import { agentRun } from "../support/microvm_builder.ts";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { secretsManagerReader } from "../../deploy/build_settings/build_secrets.ts";

/** The site the MicroVM tests deploy: 2 GB, 900 s, a 4 s idle window (keep-alive pings). */
export const MICROVM_SITE_CONFIG = {
  siteName: "blog",
  region: "eu-west-1",
  app: "blog",
  microvm: {
    memory: 2,
    maxDurationSeconds: 900,
    idle: { autoResumeEnabled: false, maxIdleDurationSeconds: 4, suspendedDurationSeconds: 60 },
  },
};

/**
 * Loopback only: the fakes, s3rver and its proxy all listen on 127.0.0.1, so a test under
 * these permissions cannot reach the VM endpoints the fake reports.
 */
export const LOOPBACK_ONLY: Deno.PermissionOptionsObject = {
  net: ["127.0.0.1"],
  read: true,
  write: true,
  env: true,
  run: true,
  sys: true,
  ffi: false,
  import: true,
};

/** What a MicroVM world is set up with. */
export interface MicrovmWorldOptions {
  /** `config/production.jsonc`. */
  readonly config: Record<string, unknown>;
  /** More config files by environment (`{ preview: {...} }`). */
  readonly envConfigs?: Readonly<Record<string, Record<string, unknown>>>;
  /** The bootstrap to run before the test (default `["bootstrap"]`). */
  readonly bootstrap?: readonly string[];
  /** Other fake options. */
  readonly fakes?: AwsFakesOptions;
  /** Arranges the fakes before the bootstrap (a Route 53 zone, say). */
  readonly beforeBootstrap?: (world: InfraWorld) => void;
}

/** A bootstrapped world whose MicroVMs run the real agent, and a CLI wired to it. */
export interface MicrovmWorld extends AsyncDisposable {
  readonly world: InfraWorld;
  /** Keep-alive requests, as `<url> <auth header>`; recorded, never sent. */
  readonly pings: string[];
  /** Runs the CLI in-process (the deploy commands with the test keep-alive). */
  run(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
}

export async function microvmWorld(options: MicrovmWorldOptions): Promise<MicrovmWorld> {
  // The guarantee the keep-alive assertions rest on: this test may not reach the VM endpoint.
  const offLoopback = await Deno.permissions.query({
    name: "net",
    host: "mvm-fake000000001.microvm.lambda.eu-west-1.on.aws",
  });
  assert.notEqual(offLoopback.state, "granted");
  // onRun only runs after the world exists (at the first RunMicrovm).
  const world: InfraWorld = await startInfraWorld(options.config, {
    ...options.fakes,
    microvms: {
      managedImages: ["al2023-1"],
      // The VM's S3, CloudFront and rules-store clients, as the agent builds them from its env.
      onRun: async (ctx) => {
        const s3 = siteS3(world);
        let clients: AwsClients | undefined;
        try {
          await agentRun(
            (group, stream, lines) => world.aws.logs.state.append(group, stream, lines),
            (job) => {
              const vm = createAwsClients(world.env, job.target.region!);
              clients = vm;
              return {
                s3,
                routing: routingDeps(vm, TEST_DEPLOYED_WAIT),
                // `build.secrets`, read as the agent reads them (the builder role's client).
                readSecret: (name: string) =>
                  secretsManagerReader(vm.client(SecretsManagerClient, "SECRETS_MANAGER"))(name),
              };
            },
          )(ctx);
        } finally {
          s3.destroy();
          clients?.[Symbol.dispose]();
        }
      },
    },
  });
  for (const [env, config] of Object.entries(options.envConfigs ?? {})) {
    await world.configure(config, env);
  }
  await writeSiteRepo(world.root);
  options.beforeBootstrap?.(world);
  const boot = await world.run([...(options.bootstrap ?? ["bootstrap"])]);
  assert.equal(boot.code, 0, boot.stderr + boot.stdout);

  const pings: string[] = [];
  const microvms = new LambdaMicrovmsClient({
    region: "eu-west-1",
    endpoint: world.aws.microvms.endpoint,
    credentials: { accessKeyId: "FAKEACCESSKEY", secretAccessKey: "FAKESECRET" },
  });
  const recordingFetch = (input: string | URL | Request, init?: RequestInit) => {
    const headers = new Headers(init?.headers);
    pings.push(`${String(input)} ${headers.get("x-aws-proxy-auth") ?? "(no token)"}`);
    return Promise.resolve(new Response("{}", { status: 200 }));
  };
  const seams: MicrovmSeams = {
    keepAlive: createKeepAlive(microvms, systemClock, recordingFetch as typeof fetch),
    pollIntervalMs: 20,
  };
  const replaced: Record<string, Command> = {
    "deploy": createDeployCommand(seams),
    "preview deploy": createPreviewDeployCommand(seams),
  };
  const commands = {
    ...COMMAND_TABLE,
    commands: COMMAND_TABLE.commands.map((c) => replaced[c.name] ?? c),
  };
  const w = world;
  const close = async () => {
    microvms.destroy();
    await w[Symbol.asyncDispose]();
  };
  return {
    world: w,
    pings,
    async run(argv) {
      const cli = captureCli({
        cwd: w.root,
        environ: w.env,
        commands,
        lookupAccountId: () => lookupAccountIdWithSts(w.env),
        // Real (short) waits: the agent's `deno task build` runs on wall time meanwhile.
        sleep: (ms) => sleep(Math.min(ms, 20)),
      });
      const code = await runCli(argv, cli.deps);
      return { code, stdout: cli.stdout(), stderr: cli.stderr() };
    },
    [Symbol.asyncDispose]: close,
  };
}
