/**
 * `deploy pds sync`: the posts published to the PDS by hand (production only), with `--prune`
 * deleting the records of posts that are gone once confirmed.
 *
 * @module
 */
import type { CommandContext } from "../../command.ts";
import { DeployError } from "../../errors.ts";
import type { OrphanRecord } from "../../pds/document_plan.ts";
import type { SyncReport } from "../../pds/publishing.ts";
import { runSync, syncLine, warnSync } from "../../pipeline/pds_stage.ts";
import { openPdsSite } from "../../site/open_pds_site.ts";

/**
 * Runs `deploy pds sync`.
 *
 * @param ctx the command context
 * @returns the exit code
 * @throws {DeployError} `usage` outside production or for `--prune-announcements` alone;
 *   `confirmation_required` / `aborted` for an unconfirmed `--prune`
 */
export async function pdsSync(ctx: CommandContext): Promise<number> {
  if (ctx.env !== "production") {
    throw new DeployError(
      "usage",
      `\`deploy pds sync\` publishes production only (got "${ctx.env}")`,
      { hint: "the records point at the production URLs: run `deploy pds sync production`" },
    );
  }
  if (ctx.flags["prune-announcements"] && !ctx.flags.prune) {
    throw new DeployError("usage", "--prune-announcements works with --prune only", {
      hint: "run `deploy pds sync --prune --prune-announcements`",
    });
  }
  using site = await openPdsSite(ctx);
  const report = await runSync(ctx, site, {
    announce: ctx.flags["no-announce"] !== true,
    ...(ctx.flags.prune === true && {
      prune: {
        announcements: ctx.flags["prune-announcements"] === true,
        confirm: (orphans) => confirmPrune(ctx, orphans),
      },
    }),
  });
  printSync(ctx, report);
  return 0;
}

/**
 * `--prune` deletes records: `--yes`, or on a terminal a "yes" typed back after the list;
 * anything else refuses before anything is written.
 */
async function confirmPrune(ctx: CommandContext, orphans: readonly OrphanRecord[]) {
  if (ctx.global.yes) return true;
  const what = `\`deploy pds sync --prune\` deletes ${orphans.length} record(s) of posts that ` +
    `are gone${ctx.flags["prune-announcements"] ? ", and their Bluesky announcements" : ""}`;
  if (!ctx.interactive) {
    throw new DeployError("confirmation_required", what, {
      hint: "run `deploy pds sync --prune --yes` to confirm",
    });
  }
  for (const orphan of orphans) ctx.out.line(`  - ${orphan.uri} ${orphan.path ?? ""}`);
  const answer = await ctx.prompt(`${what}. Type "yes" to confirm:`);
  if (answer?.trim() !== "yes") {
    throw new DeployError("aborted", 'nothing was written: the answer was not "yes"', {
      hint: "run `deploy pds sync --prune` again, or pass --yes",
    });
  }
  return true;
}

/** Prints a sync report: a summary, what changed, and the records without a post as warnings. */
function printSync(ctx: CommandContext, report: SyncReport): void {
  warnSync(ctx, report);
  if (ctx.out.mode === "json") {
    ctx.out.data(report);
    return;
  }
  ctx.out.line(syncLine(report));
  for (const path of report.created) ctx.out.line(`  + ${path}`);
  for (const path of report.updated) ctx.out.line(`  ~ ${path}`);
  for (const uri of report.pruned) ctx.out.line(`  - ${uri}`);
}
