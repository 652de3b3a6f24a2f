/**
 * What the core gives a plugin command: the site opened the one way every command opens it
 * ({@linkcode openSite}), seen through the plugin contract's small {@linkcode PluginSite}.
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { openSite, stateOrReason } from "../site/open_site.ts";
import type { PluginHost, PluginSite } from "./contract.ts";

/**
 * The host for one plugin command.
 *
 * @param ctx the command context
 * @returns the host; its `openSite` resolves the account, the bucket and the clients
 *
 * @example
 * ```ts
 * import { FirehoseClient } from "@aws-sdk/client-firehose";
 * import type { CommandContext } from "../command.ts";
 *
 * async function firehoseOf(ctx: CommandContext) {
 *   using site = await pluginHost(ctx).openSite();
 *   return site.client(FirehoseClient, "FIREHOSE", "us-east-1");
 * }
 * ```
 */
export function pluginHost(ctx: CommandContext): PluginHost {
  return {
    async openSite(): Promise<PluginSite> {
      const site = await openSite(ctx, { aws: true });
      // An unreadable state still means the site was bootstrapped.
      const { state, stateError } = await stateOrReason(site);
      return {
        env: site.env,
        siteName: site.config.siteName,
        region: site.config.region,
        accountId: site.accountId,
        bucket: site.bucket,
        tags: site.facts.tags,
        bootstrapped: state !== null || stateError !== undefined,
        get s3() {
          return site.clients.s3;
        },
        client: (make, service, region) => site.clients.client(make, service, region),
        [Symbol.dispose]: () => site[Symbol.dispose](),
      };
    },
  };
}
