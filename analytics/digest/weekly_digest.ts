/**
 * The weekly digest (`deploy analytics digest [env] --week`): last week's figures against the
 * week before, from the dashboard's own named queries, so every number in it is one the
 * dashboard shows for the same days. Collecting runs the queries; rendering is pure.
 *
 * @module
 */
import { type Cell, type QueryName, runNamedQuery } from "../queries/named_queries.ts";
import type { QueryRange } from "../queries/range.ts";
import { utcDay } from "../queries/range.ts";
import { createScanSharing } from "../queries/shared_scan.ts";
import type { PageViewSource } from "../queries/source.ts";

/** The formats `--format` takes. */
export const DIGEST_FORMATS = ["markdown", "html", "json"] as const;

/** A digest format. */
export type DigestFormat = typeof DIGEST_FORMATS[number];

/** A total and the previous week's. */
export interface DigestFigure {
  /** Last week's total. */
  readonly total: number;
  /** The week before's total. */
  readonly previous: number;
  /** `(total - previous) / previous`; null when the week before had none. */
  readonly change: number | null;
}

/** A week of UTC days, Monday to Sunday. */
export interface Week {
  /** Its Monday. */
  readonly from: string;
  /** Its Sunday. */
  readonly to: string;
}

/** What the digest says. */
export interface WeeklyDigest {
  /** The site's name and environment. */
  readonly site: { readonly siteName: string; readonly env: string };
  /** Last week. */
  readonly week: Week;
  /** The week before. */
  readonly previousWeek: Week;
  /** Whether bot rows were counted (the `analytics.bots` setting). */
  readonly bots: "include" | "exclude";
  /** Page views. */
  readonly views: DigestFigure;
  /** Unique visitors (the sum of the daily counts). */
  readonly visitors: DigestFigure;
  /** File downloads. */
  readonly downloads: DigestFigure;
  /** Feed subscribers (each reader's latest figure in the week, summed). */
  readonly feedSubscribers: DigestFigure;
  /** The top pages by views. */
  readonly topPages: readonly { readonly path: string; readonly views: number }[];
  /** The top referring sites by views. */
  readonly topReferrers: readonly { readonly referrer: string; readonly views: number }[];
  /**
   * 404s of last week whose path was not among the week before's 404s (both weeks' lists are
   * the `not_found` query's top 20 pairs).
   */
  readonly newNotFound: readonly {
    readonly path: string;
    readonly referrer: string | null;
    readonly requests: number;
  }[];
  /** The most downloaded files. */
  readonly topDownloads: readonly { readonly path: string; readonly downloads: number }[];
}

/** How many rows each list of the digest shows. */
export const DIGEST_LIST = 10;

/**
 * Last complete Monday-to-Sunday week of UTC days before a time, and the week before it (pure).
 *
 * @param nowMs the time, ms since the epoch
 * @returns the two weeks
 */
export function digestWeeks(nowMs: number): { week: Week; previousWeek: Week } {
  const weekday = (new Date(nowMs).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  const monday = -weekday - 7;
  return {
    week: { from: utcDay(nowMs, monday), to: utcDay(nowMs, monday + 6) },
    previousWeek: { from: utcDay(nowMs, monday - 7), to: utcDay(nowMs, monday - 1) },
  };
}

/**
 * Runs the named queries the digest needs for last week (each with the week before).
 *
 * @param source the table
 * @param site the site's name and environment
 * @param nowMs the time the weeks are counted back from
 * @param includeBots whether bot rows count
 * @returns the digest
 */
export async function collectDigest(
  source: PageViewSource,
  site: WeeklyDigest["site"],
  nowMs: number,
  includeBots: boolean,
): Promise<WeeklyDigest> {
  const { week, previousWeek } = digestWeeks(nowMs);
  const range: QueryRange = { ...week, includeBots };
  // Run together, the queries reading one scan (views, pages and referrers; both weeks'
  // 404s) share one read of the table for it, as the dashboard's panels do.
  const scans = createScanSharing();
  const run = (name: QueryName, r: QueryRange = range) => runNamedQuery(source, name, r, { scans });
  const [views, visitors, downloads, feeds, pages, referrers, missing, missingBefore] =
    await Promise.all([
      run("views"),
      run("unique_visitors"),
      run("downloads"),
      run("feed_subscribers"),
      run("top_paths"),
      run("referrers"),
      run("not_found"),
      run("not_found", { ...previousWeek, includeBots }),
    ]);
  const figure = (r: Awaited<ReturnType<typeof run>>): DigestFigure => ({
    total: r.total ?? 0,
    previous: r.previous?.total ?? 0,
    change: r.change ?? null,
  });
  const seen = new Set(missingBefore.rows.map((r) => r.path));
  return {
    site,
    week,
    previousWeek,
    bots: includeBots ? "include" : "exclude",
    views: figure(views),
    visitors: figure(visitors),
    downloads: figure(downloads),
    feedSubscribers: figure(feeds),
    topPages: pages.rows.slice(0, DIGEST_LIST).map((r) => ({
      path: text(r.path),
      views: num(r.views),
    })),
    topReferrers: referrers.rows.slice(0, DIGEST_LIST).map((r) => ({
      referrer: text(r.referrer),
      views: num(r.views),
    })),
    newNotFound: missing.rows.filter((r) => !seen.has(r.path)).slice(0, DIGEST_LIST).map((r) => ({
      path: text(r.path),
      referrer: r.referrer === null ? null : text(r.referrer),
      requests: num(r.requests),
    })),
    topDownloads: sumBy(downloads.rows, "path", "downloads").slice(0, DIGEST_LIST).map((
      [path, n],
    ) => ({ path, downloads: n })),
  };
}

/**
 * The digest as text (pure): Markdown (for a chat or an issue), HTML (for a mail body, every
 * value escaped) or JSON (the {@linkcode WeeklyDigest} itself).
 *
 * @param digest the digest
 * @param format the format
 * @returns the text, ending in a newline
 */
export function renderDigest(digest: WeeklyDigest, format: DigestFormat): string {
  if (format === "json") return JSON.stringify(digest, null, 2) + "\n";
  const title = `${digest.site.siteName} (${digest.site.env}): week ${digest.week.from} to ` +
    `${digest.week.to}`;
  const figures: [string, DigestFigure][] = [
    ["Page views", digest.views],
    ["Unique visitors", digest.visitors],
    ["Downloads", digest.downloads],
    ["Feed subscribers", digest.feedSubscribers],
  ];
  const lists: [string, string[], (string | number | null)[][]][] = [
    ["Top pages", ["Page", "Views"], digest.topPages.map((r) => [r.path, r.views])],
    ["Top referrers", ["Site", "Views"], digest.topReferrers.map((r) => [r.referrer, r.views])],
    [
      "New 404s",
      ["Path", "Linked from", "Requests"],
      digest.newNotFound.map((r) => [r.path, r.referrer, r.requests]),
    ],
    ["Downloads", ["File", "Downloads"], digest.topDownloads.map((r) => [r.path, r.downloads])],
  ];
  const against = `against ${digest.previousWeek.from} to ${digest.previousWeek.to}` +
    (digest.bots === "include" ? ", bots included" : ", bots excluded");
  if (format === "markdown") {
    const md = (v: string | number | null) =>
      v === null ? "–" : typeof v === "number" ? formatNumber(v) : mdCell(v);
    return [
      `# ${mdCell(title)}`,
      "",
      `Compared ${against}.`,
      "",
      "| | Last week | Week before | Change |",
      "| --- | ---: | ---: | ---: |",
      ...figures.map(([name, f]) =>
        `| ${name} | ${formatNumber(f.total)} | ${formatNumber(f.previous)} | ${
          formatChange(f.change)
        } |`
      ),
      ...lists.flatMap(([name, head, rows]) => [
        "",
        `## ${name}`,
        "",
        ...(rows.length === 0 ? ["None."] : [
          `| ${head.join(" | ")} |`,
          `| ${head.map((_, i) => i === head.length - 1 ? "---:" : "---").join(" | ")} |`,
          ...rows.map((r) => `| ${r.map(md).join(" | ")} |`),
        ]),
      ]),
      "",
    ].join("\n");
  }
  const h = (v: string | number | null) =>
    v === null ? "–" : typeof v === "number" ? formatNumber(v) : escapeHtml(v);
  return [
    "<!doctype html>",
    `<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title></head>`,
    "<body>",
    `<h1>${escapeHtml(title)}</h1>`,
    `<p>Compared ${escapeHtml(against)}.</p>`,
    "<table><thead><tr><th></th><th>Last week</th><th>Week before</th><th>Change</th></tr>" +
    "</thead><tbody>",
    ...figures.map(([name, f]) =>
      `<tr><th>${name}</th><td>${formatNumber(f.total)}</td><td>${
        formatNumber(f.previous)
      }</td><td>${escapeHtml(formatChange(f.change))}</td></tr>`
    ),
    "</tbody></table>",
    ...lists.flatMap(([name, head, rows]) => [
      `<h2>${name}</h2>`,
      rows.length === 0
        ? "<p>None.</p>"
        : `<table><thead><tr>${head.map((c) => `<th>${c}</th>`).join("")}</tr></thead><tbody>${
          rows.map((r) => `<tr>${r.map((v) => `<td>${h(v)}</td>`).join("")}</tr>`).join("")
        }</tbody></table>`,
    ]),
    "</body></html>",
    "",
  ].join("\n");
}

/** A change as "+25 %", "−10 %" or "new" when the week before had none (pure). */
function formatChange(change: number | null): string {
  if (change === null) return "new";
  const pct = Math.round(change * 1000) / 10;
  return `${pct > 0 ? "+" : pct < 0 ? "−" : "±"}${Math.abs(pct)} %`;
}

function formatNumber(n: number): string {
  return n.toLocaleString("en-US");
}

/** A Markdown table cell: pipes escaped, line breaks and control characters as spaces. */
function mdCell(value: string): string {
  // deno-lint-ignore no-control-regex -- log values are written by any visitor
  return value.replace(/[\u0000-\u001f\u007f]/g, " ").replaceAll("\\", "\\\\")
    .replaceAll("|", "\\|");
}

function escapeHtml(value: string): string {
  return value.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}

function text(value: Cell | undefined): string {
  return value === null || value === undefined ? "" : String(value);
}

function num(value: Cell | undefined): number {
  return typeof value === "number" ? value : 0;
}

/** Rows summed by one column, largest first, then by name. */
function sumBy(
  rows: readonly Record<string, Cell>[],
  key: string,
  value: string,
): [string, number][] {
  const sums = new Map<string, number>();
  for (const r of rows) sums.set(text(r[key]), (sums.get(text(r[key])) ?? 0) + num(r[value]));
  return [...sums].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}
