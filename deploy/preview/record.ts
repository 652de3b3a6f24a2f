/**
 * A preview's record, `previews/<id>/preview.json`: what `preview list` shows and what
 * `preview prune` ages by. Written after each successful `preview deploy`; removed with the
 * preview by `preview destroy`. Pure: shape, parsing, building.
 *
 * @module
 */
import { parseJsonObject } from "../build_records/record.ts";

/** One preview as its record holds it. */
export interface PreviewRecord {
  /** Record format version (1). */
  readonly version: 1;
  /** The preview id. */
  readonly id: string;
  /** `https://<id>.<domain>`. */
  readonly url: string;
  /** The revision deployed (the build id: commit, `-dirty` when uncommitted). */
  readonly revision: string;
  /** When the last deploy finished, ISO 8601. */
  readonly deployedAt: string;
}

/**
 * Checks a stored record's shape (pure).
 *
 * @param text the object's body
 * @returns the record, or why it is not one
 */
export function parsePreviewRecord(text: string): { record: PreviewRecord } | { error: string } {
  const parsed = parseJsonObject(text);
  if ("error" in parsed) return parsed;
  const r = parsed.object;
  if (r.version !== 1) return { error: `unknown version ${JSON.stringify(r.version)}` };
  for (const key of ["id", "url", "revision", "deployedAt"] as const) {
    if (typeof r[key] !== "string" || r[key] === "") return { error: `${key} missing` };
  }
  if (Number.isNaN(Date.parse(r.deployedAt as string))) return { error: "deployedAt not a date" };
  return {
    record: {
      version: 1,
      id: r.id as string,
      url: r.url as string,
      revision: r.revision as string,
      deployedAt: r.deployedAt as string,
    },
  };
}

/**
 * A record for a deploy that just finished (pure).
 *
 * @param input id, URL, revision and the finish time
 * @returns the record
 */
export function previewRecord(input: {
  id: string;
  url: string;
  revision: string;
  deployedAt: Date;
}): PreviewRecord {
  return {
    version: 1,
    id: input.id,
    url: input.url,
    revision: input.revision,
    deployedAt: input.deployedAt.toISOString(),
  };
}
