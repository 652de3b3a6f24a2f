/**
 * `deploy history [env]`: the environment's builds, newest first, from the build records in
 * the site bucket.
 *
 * @module
 */
import { readLiveBuild } from "../build_records/live_build.ts";
import { liveBuildKey } from "../state/bucket_layout.ts";
import type { Command } from "../command.ts";
import { type BuildRecord, newestFirst } from "../build_records/record.ts";
import { listBuildRecords } from "../build_records/store.ts";
import { openSite } from "../site/open_site.ts";
import { humanDuration } from "../units.ts";

/**
 * The history as a terminal table: a header, then one aligned row per build.
 *
 * @param records newest first
 * @param liveId the build the live site serves (`state/<env>.live.json`), marked `(live)`
 * @returns lines
 */
export function historyTable(records: readonly BuildRecord[], liveId?: string): string[] {
  const rows = [
    ["ID", "STATUS", "FINISHED", "DURATION"],
    ...records.map((r) => [
      r.id,
      r.id === liveId ? `${r.status} (live)` : r.status,
      r.finishedAt ? r.finishedAt.replace("T", " ").replace(/\.\d+Z$/, "Z") : "-",
      r.durationMs === null ? "-" : humanDuration(r.durationMs),
    ]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  return rows.map((row) => row.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd());
}

/**
 * The history for scripts: one tab-separated line per build, no header, fixed columns
 * `id status finishedAt durationMs` (`-` when unknown).
 *
 * @param records newest first
 * @returns lines
 */
export function historyPlain(records: readonly BuildRecord[]): string[] {
  return records.map((r) =>
    [r.id, r.status, r.finishedAt ?? "-", r.durationMs === null ? "-" : String(r.durationMs)]
      .join("\t")
  );
}

/** The `history` command. */
export const historyCommand: Command = {
  name: "history",
  summary: "list builds, newest first",
  help: "Lists the builds recorded in the site bucket (builds/<id>.json), newest first: id,\n" +
    "status (running, done, failed, timeout), finish time and duration. A record that cannot\n" +
    "be read is skipped with a warning. The build the live site serves is marked (live), also\n" +
    "after a rollback to an older one. Piped output is tab-separated: id, status, finishedAt\n" +
    "(ISO 8601), durationMs. --json prints the records, each with live: true or false.",
  async run(ctx) {
    using site = await openSite(ctx, { aws: true });
    const { records, skipped } = await listBuildRecords({
      s3: site.clients.s3,
      bucket: site.bucket,
    });
    for (const s of skipped) ctx.out.warn(`skipped ${s.key}: ${s.reason}`);
    const sorted = newestFirst(records);
    const liveId = await readLiveBuild(
      { s3: site.clients.s3, bucket: site.bucket },
      liveBuildKey(ctx.env),
    );
    if (ctx.out.mode === "json") {
      ctx.out.data(sorted.map((r) => ({
        id: r.id,
        status: r.status,
        startedAt: r.startedAt,
        finishedAt: r.finishedAt,
        durationMs: r.durationMs,
        live: r.id === liveId,
        ...(r.reason === undefined ? {} : { reason: r.reason }),
      })));
      return;
    }
    if (ctx.out.mode === "plain") {
      for (const line of historyPlain(sorted)) ctx.out.line(line);
      return;
    }
    if (sorted.length === 0) {
      ctx.out.line(`no builds recorded for ${ctx.env} yet`);
      return;
    }
    for (const line of historyTable(sorted, liveId)) ctx.out.line(line);
  },
};
