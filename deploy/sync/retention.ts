/**
 * Which files of the previous build a deploy keeps for open tabs (issue #28,
 * `retention.previousDays`), as a pure decision over the sync's deletions and what earlier
 * deploys kept. A tab opened on build 1 lazily loads chunks and stylesheets that build 2 no
 * longer has; deleting them at once breaks that tab. So a file the new build lacks lingers for
 * `previousDays` after it left, and a later deploy deletes it once that grace has passed. HTML
 * pages, `robots.txt` and `sitemap.xml` follow the new build at once: a removed page must
 * answer 404, and crawlers must see the new policy.
 *
 * @module
 */
import type { KeptFile } from "../state/kept_files.ts";
import { isHtml, type RemoteObject } from "./plan.ts";

export type { KeptFile };

/** What a deploy does with the files its build no longer has. */
export interface RetentionDecision {
  /** Deleted by this deploy, sorted: pages and SEO files, and kept files past their grace. */
  readonly deleteNow: readonly string[];
  /** The kept files whose grace ended in this deploy (a subset of `deleteNow`), sorted. */
  readonly expired: readonly string[];
  /** Kept after this deploy, sorted by key. */
  readonly kept: readonly KeptFile[];
}

const DAY_MS = 86_400_000;

/**
 * When a kept file's grace ends (pure): the first deploy from then on deletes it.
 *
 * @param file the kept file
 * @param previousDays config `retention.previousDays`
 * @returns ISO 8601
 */
export function keptUntil(file: KeptFile, previousDays: number): string {
  return new Date(Date.parse(file.since) + previousDays * DAY_MS).toISOString();
}

/**
 * Whether a file leaves with its build at once rather than lingering (pure): HTML pages, and
 * the SEO files at the root.
 *
 * @param key site-relative key
 * @returns true for `*.html`/`*.htm`, `robots.txt` and `sitemap.xml`
 */
export function followsBuildAtOnce(key: string): boolean {
  return isHtml(key) || key === "robots.txt" || key === "sitemap.xml";
}

/**
 * Splits the sync's deletions into what goes now and what lingers (pure). A kept file that
 * the new build has again, or that is no longer live, is simply no longer kept; a file whose
 * grace started with this deploy is not `expired` even when `previousDays` is 0.
 *
 * @param gone the live objects the new build no longer has (the sync plan's deletions)
 * @param previouslyKept what earlier deploys kept, with when each left
 * @param nowMs this deploy's clock reading
 * @param previousDays config `retention.previousDays` (0: delete everything at once)
 * @returns what to delete now, what expired, and what stays kept
 *
 * @example
 * ```ts
 * decideRetention([{ key: "a.js", size: 1 }], [], Date.now(), 7).kept; // [a.js]
 * ```
 */
export function decideRetention(
  gone: readonly Pick<RemoteObject, "key" | "size">[],
  previouslyKept: readonly KeptFile[],
  nowMs: number,
  previousDays: number,
): RetentionDecision {
  const leftBefore = new Map(previouslyKept.map((k) => [k.key, k.since]));
  const deleteNow: string[] = [];
  const expired: string[] = [];
  const kept: KeptFile[] = [];
  for (const { key, size } of gone) {
    if (followsBuildAtOnce(key)) {
      deleteNow.push(key);
      continue;
    }
    const earlier = leftBefore.get(key);
    const leftMs = earlier === undefined ? NaN : Date.parse(earlier);
    // A file first missing now (or with an unreadable time) starts its grace now.
    const since = Number.isFinite(leftMs) ? leftMs : nowMs;
    if (nowMs - since >= previousDays * DAY_MS) {
      deleteNow.push(key);
      // Finally deleted: it was kept by an earlier deploy (previousDays 0 ends that at once).
      if (earlier !== undefined) expired.push(key);
    } else {
      kept.push({ key, size, since: new Date(since).toISOString() });
    }
  }
  const byKey = (a: string, b: string) => a < b ? -1 : a > b ? 1 : 0;
  return {
    deleteNow: deleteNow.sort(byKey),
    expired: expired.sort(byKey),
    kept: kept.sort((a, b) => byKey(a.key, b.key)),
  };
}
