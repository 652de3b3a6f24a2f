/**
 * Previews in the preview bucket: find every live preview (its record and newest file), write
 * a preview's record after a deploy, and delete everything of one preview. Thin adapters over
 * the bucket's object helpers and its `emptyPrefix`.
 *
 * @module
 */
import {
  getText,
  type ListedObject,
  listObjects,
  putJson,
  type S3Location,
} from "../aws/s3_objects.ts";
import { emptyPrefix } from "../infra/nodes/bucket.ts";
import {
  previewIdOfKey,
  previewPrefix,
  previewRecordKey,
  PREVIEWS_PREFIX,
} from "../state/bucket_layout.ts";
import { parsePreviewRecord, type PreviewRecord } from "./record.ts";

/** One live preview as found in the bucket. */
export interface LivePreview {
  /** The preview id. */
  readonly id: string;
  /** Its record, when it has a readable one. */
  readonly record: PreviewRecord | null;
  /** Upload time of its newest object, ms since the epoch. */
  readonly newestUpload: number;
  /** How many objects it has (files and record). */
  readonly objects: number;
}

/**
 * Groups listed keys by preview (pure).
 *
 * @param objects keys under `previews/` with their upload times
 * @returns per preview id, its newest upload and object count, ids sorted
 */
export function groupByPreview(
  objects: readonly ListedObject[],
): { id: string; newestUpload: number; objects: number }[] {
  const byId = new Map<string, { newestUpload: number; objects: number }>();
  for (const o of objects) {
    const id = previewIdOfKey(o.key);
    if (id === undefined) continue;
    const seen = byId.get(id) ?? { newestUpload: 0, objects: 0 };
    byId.set(id, {
      newestUpload: Math.max(seen.newestUpload, o.lastModified),
      objects: seen.objects + 1,
    });
  }
  return [...byId.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map((
    [id, v],
  ) => ({ id, ...v }));
}

/**
 * Every live preview, with its record (a record that is missing or does not parse is `null`:
 * the preview still shows, aged by its newest file). Lists without a delimiter, so the listing
 * is exact on every S3 implementation.
 *
 * @param at the preview bucket and client
 * @returns the previews, sorted by id
 * @throws {DeployError} an AWS failure
 */
export async function listPreviews(at: S3Location): Promise<LivePreview[]> {
  const objects = await listObjects(at, PREVIEWS_PREFIX);
  const out: LivePreview[] = [];
  for (const group of groupByPreview(objects)) {
    const text = await getText(at, previewRecordKey(group.id));
    const parsed = text === undefined ? undefined : parsePreviewRecord(text);
    out.push({ ...group, record: parsed && "record" in parsed ? parsed.record : null });
  }
  return out;
}

/**
 * Stores a preview's record after a successful deploy.
 *
 * @param at the preview bucket and client
 * @param record the record
 */
export async function writePreviewRecord(
  at: S3Location,
  record: PreviewRecord,
): Promise<void> {
  await putJson(at, previewRecordKey(record.id), record);
}

/**
 * Deletes everything of one preview (`previews/<id>/`): its files and its record. An unknown
 * id deletes nothing.
 *
 * @param at the preview bucket and client
 * @param id the preview id
 * @returns how many objects were deleted
 * @throws {DeployError} an AWS failure
 */
export async function destroyPreview(at: S3Location, id: string): Promise<number> {
  return await emptyPrefix(at.s3, at.bucket, previewPrefix(id));
}
