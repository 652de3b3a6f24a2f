/**
 * `deploy pds keygen`: a new OAuth client key in the secret, and the client documents written.
 *
 * @module
 */
import type { CommandContext } from "../../command.ts";
import { keygen } from "../../pds/publishing.ts";
import { writeAll } from "../../pds/site.ts";
import { openPdsSite } from "../../site/open_pds_site.ts";

/**
 * Runs `deploy pds keygen`.
 *
 * @param ctx the command context
 * @returns the exit code
 */
export async function pdsKeygen(ctx: CommandContext): Promise<number> {
  using site = await openPdsSite(ctx);
  const out = await keygen({
    store: site.store,
    origin: site.origin,
    name: site.pds.name,
    publicDir: site.paths.publicDir,
    now: new Date(ctx.clock.now()),
  });
  const files = await writeAll(site, out.writes);
  if (ctx.out.mode === "json") {
    ctx.out.data({ secret: site.store.name, kid: out.kid, files });
    return 0;
  }
  ctx.out.line(`New client key ${out.kid} stored in secret ${site.store.name}.`);
  for (const w of out.writes) ctx.out.line(`  wrote ${w.path}`);
  ctx.out.line(
    "Next: commit these files, deploy production, then run " +
      "`deploy pds login --identifier <handle-or-DID>`.",
  );
  return 0;
}
