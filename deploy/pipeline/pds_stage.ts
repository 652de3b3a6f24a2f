/**
 * The production deploy's PDS stage (docs/pds.md), which `runDeploy` (`deploy.ts`) runs around the
 * publish: before the build it refreshes `paths.commentsJson` (so the pages deployed show the
 * replies read now); once the site is live it publishes the posts to the account's PDS. A
 * rollback's stage only warns that the records are not rolled back. Neither step fails the
 * deploy: a failure is a warning and the deploy's outcome stands. The `pds sync` and
 * `pds comments` commands run the same steps ({@linkcode runSync}, {@linkcode runComments}).
 *
 * @module
 */
import type { CommandContext } from "../command.ts";
import { asDeployError, errorDetails } from "../error_report.ts";
import type { PruneOptions } from "../pds/document_sync.ts";
import { isPostFile } from "../pds/posts.ts";
import {
  type FileWrite,
  refreshComments,
  syncPublication,
  type SyncReport,
} from "../pds/publishing.ts";
import { openPdsAgent } from "../pds/session.ts";
import type { PdsSite } from "../pds/site.ts";
import { openPdsSite } from "../site/open_pds_site.ts";

/** Steps of the PDS around a publish; `runDeploy` awaits each outside the deploy lock. */
export interface PdsStage {
  /** Before the revision is read and the source zipped. */
  readonly beforeBuild?: () => Promise<void>;
  /** Once the site is published and invalidated. */
  readonly afterPublish?: () => Promise<void>;
}

/**
 * The PDS stage of a `deploy` or `rollback` run: none outside production.
 *
 * @param ctx the command's context
 * @param run `deploy` (refresh the comments, then publish the posts) or `rollback` (warn that
 *   the records are not rolled back)
 * @returns the stage, or undefined
 */
export function pdsStage(
  ctx: CommandContext,
  run: "deploy" | "rollback",
): PdsStage | undefined {
  if (ctx.env !== "production") return undefined;
  if (run === "rollback") return { afterPublish: () => warnRecordsNotRolledBack(ctx) };
  return {
    beforeBuild: () => refreshCommentsBeforeDeploy(ctx),
    afterPublish: () => publishAfterDeploy(ctx),
  };
}

/**
 * Runs the sync of the posts (the `pds sync` command and the step after a production deploy).
 *
 * @param ctx the command context
 * @param site the publishing context
 * @param options `announce`: new posts are announced when `pds.announce.enabled` too;
 *   `prune`: delete orphan records (never after a deploy)
 * @returns the report
 */
export async function runSync(
  ctx: CommandContext,
  site: PdsSite,
  options: { announce: boolean; prune?: PruneOptions },
): Promise<SyncReport> {
  const agent = await pdsAgent(ctx, site);
  const names = (await site.listFiles(site.paths.content)).filter(isPostFile);
  const files = await Promise.all(names.map(async (path) => ({
    path,
    text: (await site.readFile(`${site.paths.content}/${path}`)) ?? "",
  })));
  return await syncPublication({
    agent,
    files,
    paths: site.paths,
    atprotoJsonText: await site.readFile(site.paths.atprotoJson),
    readBinary: site.readBinary,
    ...(options.announce && site.pds.announce.enabled && {
      announce: {
        template: site.pds.announce.template,
        origin: site.origin,
        now: () => ctx.clock.now(),
        random10: () => crypto.getRandomValues(new Uint16Array(1))[0]! & 0x3ff,
      },
    }),
    ...(options.prune !== undefined && { prune: options.prune }),
    log: ctx.log,
  });
}

/**
 * Reads the comments and writes `paths.commentsJson` (only when every thread was read): the
 * `pds comments` command and the step before a production deploy's build.
 *
 * @param ctx the command context
 * @param site the publishing context
 * @returns what was read and the file written
 */
export async function runComments(
  ctx: CommandContext,
  site: PdsSite,
): Promise<{ posts: number; comments: number; write: FileWrite }> {
  const out = await refreshComments({
    agent: await pdsAgent(ctx, site),
    paths: site.paths,
    atprotoJsonText: await site.readFile(site.paths.atprotoJson),
    appview: { appview: site.pds.appview, fetch: ctx.fetch },
  });
  await site.writeFile(out.write.path, out.write.text);
  return out;
}

/**
 * The line that reports {@linkcode runComments} (pure).
 *
 * @param out what it read and wrote
 * @returns one line
 */
export function commentsLine(out: { posts: number; comments: number; write: FileWrite }): string {
  return `Wrote ${out.write.path}: ${out.comments} comment(s) on ${out.posts} announced post(s).`;
}

/**
 * Prints a sync's warnings: what it reported, and each record without a post it kept.
 *
 * @param ctx the command context
 * @param report what the sync did
 */
export function warnSync(ctx: CommandContext, report: SyncReport): void {
  for (const warning of report.warnings) ctx.out.warn(warning);
  const pruned = new Set(report.pruned);
  for (const orphan of report.orphans) {
    if (!pruned.has(orphan.uri)) ctx.out.warn(orphanWarning(orphan));
  }
}

/**
 * The summary line of a sync (pure).
 *
 * @param report what the sync did
 * @returns one line
 */
export function syncLine(report: SyncReport): string {
  return `Published to ${report.publicationUri}: ${report.created.length} created, ` +
    `${report.updated.length} updated, ${report.unchanged} unchanged` +
    (report.announced.length > 0 ? `, ${report.announced.length} announced` : "") +
    (report.pruned.length > 0 ? `, ${report.pruned.length} deleted` : "") +
    (report.drafts.length > 0 ? `, ${report.drafts.length} draft(s) skipped` : "") + ".";
}

function orphanWarning(orphan: SyncReport["orphans"][number]): string {
  return `record ${orphan.uri} has no local post${orphan.path ? ` (${orphan.path})` : ""}; ` +
    "it was kept (`deploy pds sync --prune` deletes it)";
}

/**
 * The logged-in PDS of the site's stored session.
 *
 * @param ctx the command context (its logger)
 * @param site the publishing context
 * @returns the agent
 */
export function pdsAgent(
  ctx: CommandContext,
  site: PdsSite,
): ReturnType<typeof openPdsAgent> {
  return openPdsAgent({ ...site.oauth, store: site.store, origin: site.origin, log: ctx.log });
}

/**
 * The comments step of a production deploy (`pds.comments` on, the site initialised): runs
 * before the build, so the pages deployed show the replies read now. It never fails the
 * deploy: any failure is a warning and the previous file stays.
 */
async function refreshCommentsBeforeDeploy(ctx: CommandContext): Promise<void> {
  // The site is loaded once per run, with the account the deploy needs for its bucket name.
  await ctx.accountId();
  // Off unless asked for: a broken `pds` section is reported once, by the sync after the deploy.
  const raw = (await ctx.site()).config.pds as { comments?: unknown } | undefined;
  if (raw?.comments !== true) return;
  try {
    using site = await openPdsSite(ctx);
    if (await site.readFile(site.paths.atprotoJson) === null) return;
    ctx.out.line(commentsLine(await runComments(ctx, site)));
  } catch (err) {
    warnStepFailed(
      ctx,
      err,
      "refreshing the comments failed (the deploy goes on with the previous file)",
      "pds comments before deploy failed",
    );
  }
}

/**
 * The publishing step after a production deploy: when the config has a `pds` section and the
 * site is initialised (`paths.atprotoJson` exists), syncs the posts. It never fails the
 * deploy: any failure, a malformed `pds` section included, is printed as a warning.
 */
async function publishAfterDeploy(ctx: CommandContext): Promise<void> {
  if ((await ctx.site()).config.pds === undefined) return;
  ctx.out.progress(""); // no half-drawn upload bar under the lines below
  try {
    using site = await openPdsSite(ctx);
    if (await site.readFile(site.paths.atprotoJson) === null) {
      ctx.out.step(`pds: ${site.paths.atprotoJson} not found; run \`deploy pds init\` to publish`);
      return;
    }
    const report = await runSync(ctx, site, { announce: true });
    warnSync(ctx, report);
    ctx.out.line(syncLine(report));
  } catch (err) {
    warnStepFailed(
      ctx,
      err,
      "publishing to the PDS failed (the deploy itself succeeded)",
      "pds sync after deploy failed",
    );
  }
}

/**
 * Reports a PDS step that failed without failing the deploy: a warning with the error's code and
 * details on the terminal, its code in the log.
 */
function warnStepFailed(ctx: CommandContext, err: unknown, what: string, logMessage: string) {
  const e = asDeployError(err);
  ctx.out.warn(`${what}: ${e.message} [${e.code}]`);
  for (const line of errorDetails(e, ctx.out.paint)) ctx.out.warn(line);
  ctx.log.warn(logMessage, { code: e.code });
}

/**
 * The warning a production rollback prints when the site publishes to a PDS: records are not
 * rolled back.
 *
 * @param ctx the `rollback` command's context
 */
export async function warnRecordsNotRolledBack(ctx: CommandContext): Promise<void> {
  if ((await ctx.site()).config.pds === undefined || ctx.env !== "production") return;
  ctx.out.warn(
    "the site's AT Protocol records were not rolled back: they follow the posts of the " +
      "current repository (run `deploy pds sync` from the commit whose posts you want)",
  );
}
