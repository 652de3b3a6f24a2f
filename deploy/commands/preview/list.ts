/**
 * `deploy preview list`: each live preview with its URL, revision and last deploy time.
 *
 * @module
 */
import type { CommandContext } from "../../command.ts";
import { previewRows, previewTable } from "../../preview/listing.ts";
import { requirePreviewConfig } from "../../preview/open_preview.ts";
import { listPreviews } from "../../preview/store.ts";
import { openSite } from "../../site/open_site.ts";

/**
 * Runs `deploy preview list`.
 *
 * @param ctx the command context
 * @returns the exit code
 */
export async function previewList(ctx: CommandContext): Promise<number> {
  using site = await openSite(ctx, { aws: true });
  const domain = requirePreviewConfig(site.site);
  const rows = previewRows(
    await listPreviews({ s3: site.clients.s3, bucket: site.bucket }),
    domain,
  );
  if (ctx.out.mode === "json") {
    ctx.out.data({ previews: rows });
    return 0;
  }
  if (rows.length === 0) {
    ctx.out.line("no previews");
    return 0;
  }
  for (const line of previewTable(rows)) ctx.out.line(line);
  return 0;
}
