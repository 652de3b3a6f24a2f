/**
 * The builder a command runs the build-and-publish job with (`deploy`, `plan`, `rollback`):
 * the local builder, or the MicroVM builder with the image settings `bootstrap` recorded.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import type { AwsSite } from "../site/open_site.ts";
import { type EnvStateView, requireBuilderSettings } from "../state/env_state.ts";
import type { Builder } from "./builder.ts";
import { createLocalBuilder } from "./local.ts";
import { routingDeps } from "../routing/rules_store_client.ts";
import { createMicrovmBuilder, type MicrovmBuilderOptions } from "./microvm/builder.ts";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { cacheRootIn } from "../build_cache/cache_store.ts";
import { secretsManagerReader } from "../build_settings/build_secrets.ts";

/**
 * Test seams passed through to the MicroVM builder. The keep-alive matters most: by default it
 * requests `GET <vm endpoint>/healthz` on the VM's public endpoint, which a test must replace
 * (the fake's endpoints are not loopback). The CLI passes none.
 */
export type MicrovmSeams = Pick<
  MicrovmBuilderOptions,
  "keepAlive" | "bundle" | "newToken" | "pollIntervalMs" | "clock" | "sleep"
>;

/**
 * The builder a command runs the job with: `local` here (the build's output relayed line by
 * line), or `microvm` with the builder image settings `bootstrap` recorded.
 *
 * @param ctx the command context
 * @param site the opened site (clients, config, state)
 * @param name `local` or `microvm`
 * @param options MicroVM test seams (none in the CLI), the local build's temp root, and the
 *   other way out `builder_not_configured` suggests
 * @returns the builder
 * @throws {DeployError} `builder_not_configured` for `microvm` before bootstrap set it up
 */
export function createBuilder(
  ctx: CommandContext,
  site: AwsSite,
  state: EnvStateView,
  name: "local" | "microvm",
  options: { seams?: MicrovmSeams; tempRoot?: string; alternative?: string } = {},
): Builder {
  if (name === "local") {
    // The build's output is relayed line by line; a child such as `deno task` colours it even
    // into a pipe, so when this CLI prints no colour the build is told so too (otherwise a
    // piped deploy, or a test run without NO_COLOR in the process environment, got escapes).
    return createLocalBuilder({
      s3: site.clients.s3,
      logger: ctx.log,
      clock: ctx.clock,
      routing: routingDeps(site.clients, ctx.deployedWait),
      ...(options.tempRoot
        ? { tempRoot: options.tempRoot, cacheRoot: cacheRootIn(options.tempRoot) }
        : {}),
      readSecret: (name) =>
        secretsManagerReader(site.clients.client(SecretsManagerClient, "SECRETS_MANAGER"))(name),
      ...(ctx.out.color ? {} : { env: { NO_COLOR: "1" } }),
    });
  }
  return createMicrovmBuilder({
    clients: site.clients,
    env: site.env,
    siteName: site.config.siteName,
    region: site.config.region,
    microvm: site.config.microvm,
    image: requireBuilderSettings(state, site.env, options.alternative),
    clock: ctx.clock,
    sleep: (ms) => ctx.sleep(ms),
    onStatus: (s) => ctx.out.step(s),
    onWarning: (w) => ctx.out.warn(w),
    ...options.seams,
  });
}
