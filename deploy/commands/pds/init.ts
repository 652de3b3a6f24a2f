/**
 * `deploy pds init`: the publication record created or updated, and its files written.
 *
 * @module
 */
import type { CommandContext } from "../../command.ts";
import { WELL_KNOWN_PATH } from "../../pds/publication.ts";
import { initPublication } from "../../pds/publishing.ts";
import { writeAll } from "../../pds/site.ts";
import { pdsAgent } from "../../pipeline/pds_stage.ts";
import { openPdsSite } from "../../site/open_pds_site.ts";

/**
 * Runs `deploy pds init`.
 *
 * @param ctx the command context
 * @returns the exit code
 */
export async function pdsInit(ctx: CommandContext): Promise<number> {
  using site = await openPdsSite(ctx);
  const agent = await pdsAgent(ctx, site);
  const result = await initPublication({
    agent,
    origin: site.origin,
    name: site.pds.name,
    ...(site.pds.description !== undefined && { description: site.pds.description }),
    paths: site.paths,
    wellKnown: await site.readFile(`${site.paths.publicDir}/${WELL_KNOWN_PATH}`),
    now: ctx.clock.now(),
    random10: crypto.getRandomValues(new Uint16Array(1))[0]! & 0x3ff,
  });
  const files = await writeAll(site, result.writes);
  if (ctx.out.mode === "json") {
    ctx.out.data({ ...result, writes: undefined, files });
    return 0;
  }
  ctx.out.line(
    `${result.created ? "Created" : "Updated"} the publication ${result.publicationUri}.`,
  );
  for (const w of result.writes) ctx.out.line(`  wrote ${w.path}`);
  ctx.out.line("Next: commit these files and deploy production; it publishes the posts.");
  return 0;
}
