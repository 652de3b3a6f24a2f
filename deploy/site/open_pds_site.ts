/**
 * Opens the site for a `pds` command (and the sync after a production deploy): the one site
 * context (`openSite`) for the configuration, the checked `pds` section and `domain`, the
 * `pds.secretName` secret through the one AWS client factory, and the repository's files
 * through the CLI's file seam. No STS call: the secret needs no account id.
 *
 * @module
 */
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { CommandContext } from "../command.ts";
import { createAwsClients } from "../aws/clients.ts";
import { secretsManagerStore } from "../pds/secret.ts";
import { type PdsSite, publishingSettings } from "../pds/site.ts";
import { siteOrigin } from "../seo/policy.ts";
import { listSiteFiles } from "../sync/local_files.ts";
import { openSite } from "./open_site.ts";

/** A {@linkcode PdsSite} that releases its AWS client when disposed. */
export interface OpenedPdsSite extends PdsSite, Disposable {}

/**
 * Opens the publishing context.
 *
 * @param ctx the command context
 * @returns the context; dispose it to release the Secrets Manager client
 * @throws {DeployError} config errors, `config_invalid` for the `pds` section,
 *   `pds_not_configured` without a `pds` section or a `domain`
 */
export async function openPdsSite(ctx: CommandContext): Promise<OpenedPdsSite> {
  const site = await openSite(ctx);
  const settings = publishingSettings(await ctx.pds(), site.config.domain, site.site.file);
  const clients = createAwsClients(ctx.environ, site.config.region);
  const abs = (path: string) => `${ctx.repoDir}/${path}`;
  const { publicDir, content, atprotoJson, commentsJson } = site.config.paths;
  return {
    env: site.env,
    origin: siteOrigin(settings.domain, undefined)!,
    pds: settings.pds,
    paths: { publicDir, content, atprotoJson, commentsJson },
    store: secretsManagerStore(
      clients.client(SecretsManagerClient, "SECRETS_MANAGER"),
      settings.pds.secretName,
      { tags: { ...site.names.tags }, sleep: (ms) => ctx.sleep(ms) },
    ),
    oauth: { fetch: ctx.fetch, now: () => ctx.clock.now() },
    async readFile(path) {
      return await ctx.files.exists(abs(path)) ? await ctx.files.readTextFile(abs(path)) : null;
    },
    async readBinary(path, maxBytes) {
      // Covers only (the file seam is for text): the size first, so a huge file is never read.
      let size: number;
      try {
        size = (await Deno.stat(abs(path))).size;
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return null;
        throw err;
      }
      return size > maxBytes ? { size } : { size, bytes: await Deno.readFile(abs(path)) };
    },
    async writeFile(path, text) {
      const full = abs(path);
      await ctx.files.mkdir(full.slice(0, full.lastIndexOf("/")));
      await ctx.files.writeTextFile(full, text);
    },
    async listFiles(dir) {
      if (!await ctx.files.exists(abs(dir))) return [];
      return (await listSiteFiles(abs(dir))).map((f) => f.key).sort();
    },
    [Symbol.dispose]: () => clients[Symbol.dispose](),
  };
}
