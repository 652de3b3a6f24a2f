/**
 * `deploy pds comments`: `paths.commentsJson` written from the replies to the announced posts.
 *
 * @module
 */
import type { CommandContext } from "../../command.ts";
import { commentsLine, runComments } from "../../pipeline/pds_stage.ts";
import { openPdsSite } from "../../site/open_pds_site.ts";

/**
 * Runs `deploy pds comments`.
 *
 * @param ctx the command context
 * @returns the exit code
 */
export async function pdsComments(ctx: CommandContext): Promise<number> {
  using site = await openPdsSite(ctx);
  const out = await runComments(ctx, site);
  if (ctx.out.mode === "json") {
    ctx.out.data({ file: out.write.path, posts: out.posts, comments: out.comments });
    return 0;
  }
  ctx.out.line(commentsLine(out));
  return 0;
}
