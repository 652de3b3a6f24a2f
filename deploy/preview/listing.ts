/**
 * What `preview list` shows and what `preview prune` ages by, from the previews found in the
 * bucket (pure): a preview with a record shows its record; one without (a deploy that failed
 * half way) shows its URL and its newest file's upload time, revision unknown.
 *
 * @module
 */
import { previewUrl } from "../config/names.ts";
import type { PreviewAge } from "./prune.ts";
import type { LivePreview } from "./store.ts";

/** One row of `preview list` (`--json` prints these). */
export interface PreviewRow {
  /** The preview id. */
  readonly id: string;
  /** `https://<id>.<domain>`. */
  readonly url: string;
  /** The deployed revision; `null` without a record. */
  readonly revision: string | null;
  /** Last deploy, ISO 8601. */
  readonly deployedAt: string;
}

function lastDeployedAt(p: LivePreview): number {
  return p.record ? Date.parse(p.record.deployedAt) : p.newestUpload;
}

/**
 * The list rows, newest deploy first (pure).
 *
 * @param previews the previews found
 * @param domain the preview base domain (for previews without a record)
 * @returns the rows
 */
export function previewRows(previews: readonly LivePreview[], domain: string): PreviewRow[] {
  return [...previews]
    .sort((a, b) => lastDeployedAt(b) - lastDeployedAt(a) || (a.id < b.id ? -1 : 1))
    .map((p) => ({
      id: p.id,
      url: p.record?.url ?? previewUrl(p.id, domain),
      revision: p.record?.revision ?? null,
      deployedAt: new Date(lastDeployedAt(p)).toISOString(),
    }));
}

/**
 * Each preview's age for `prune` (pure).
 *
 * @param previews the previews found
 * @returns id and last deploy time
 */
export function previewAges(previews: readonly LivePreview[]): PreviewAge[] {
  return previews.map((p) => ({ id: p.id, lastDeployedAt: lastDeployedAt(p) }));
}

/**
 * The rows as a terminal table (pure): a header, then one aligned row per preview.
 *
 * @param rows the rows
 * @returns lines
 */
export function previewTable(rows: readonly PreviewRow[]): string[] {
  const cells = [
    ["ID", "URL", "REVISION", "DEPLOYED"],
    ...rows.map((r) => [
      r.id,
      r.url,
      r.revision ?? "-",
      r.deployedAt.replace("T", " ").replace(/\.\d+Z$/, "Z"),
    ]),
  ];
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return cells.map((row) => row.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd());
}
