/**
 * The invalidation a deploy owes: the site keys it changed, recorded in the environment's
 * state (`state/<env>.invalidation.json`) before they are uploaded and before CloudFront is
 * asked, and cleared only once CloudFront accepted the invalidation. A deploy that fails
 * half-way, whose invalidation is refused, or that is interrupted leaves them there; the next
 * deploy invalidates them together with its own changes (`planInvalidation` caps the whole at
 * `invalidationMaxPaths`), and `status` shows them.
 *
 * @module
 */
import type { S3Client } from "@aws-sdk/client-s3";
import { getText, putJson, removeObject } from "../aws/s3_objects.ts";

/** Past this many keys the record keeps `all` instead: the next invalidation is `/*` anyway. */
export const MAX_OWED_KEYS = 10_000;

/** What the record holds. */
export interface OwedInvalidation {
  /** Site keys changed and not yet invalidated, sorted. */
  readonly keys: readonly string[];
  /** More changed than {@linkcode MAX_OWED_KEYS}: everything is owed. */
  readonly all: boolean;
}

/** Nothing owed. */
export const NOTHING_OWED: OwedInvalidation = { keys: [], all: false };

/** Where the record is. */
export interface OwedAt {
  /** S3 client for the bucket. */
  readonly s3: S3Client;
  /** The site bucket. */
  readonly bucket: string;
  /** The record's key (`owedInvalidationKey(scope)`). */
  readonly key: string;
}

/**
 * Adds `keys` to what is owed (pure).
 *
 * @param owed what was owed
 * @param keys keys changed since
 * @returns the union, sorted, or `all` past {@linkcode MAX_OWED_KEYS}
 */
export function addOwed(owed: OwedInvalidation, keys: readonly string[]): OwedInvalidation {
  if (owed.all) return owed;
  const union = [...new Set([...owed.keys, ...keys])].sort();
  return union.length > MAX_OWED_KEYS ? { keys: [], all: true } : { keys: union, all: false };
}

/**
 * Reads what is owed; nothing when no record exists (or it is unreadable: it is re-written
 * whole by the next deploy).
 *
 * @param at bucket and key
 * @returns the owed keys
 */
export async function readOwed(at: OwedAt): Promise<OwedInvalidation> {
  const text = await getText(at, at.key);
  if (text === undefined) return NOTHING_OWED;
  try {
    const v = JSON.parse(text) as { keys?: unknown; all?: unknown };
    if (v.all === true) return { keys: [], all: true };
    const keys = Array.isArray(v.keys) ? v.keys.filter((k) => typeof k === "string") : [];
    return { keys: keys as string[], all: false };
  } catch {
    // A torn record: owe everything rather than forget what it held.
    return { keys: [], all: true };
  }
}

/**
 * Records `keys` as owed, on top of what already is (nothing written when there is nothing
 * new).
 *
 * @param at bucket and key
 * @param keys site keys changed (or about to be)
 * @returns what is owed now
 */
export async function recordOwed(at: OwedAt, keys: readonly string[]): Promise<OwedInvalidation> {
  const before = await readOwed(at);
  const after = addOwed(before, keys);
  if (after.all === before.all && after.keys.length === before.keys.length) return after;
  await putJson(at, at.key, { version: 1, ...after });
  return after;
}

/**
 * Clears the record once CloudFront accepted the invalidation.
 *
 * @param at bucket and key
 */
export async function clearOwed(at: OwedAt): Promise<void> {
  await removeObject(at, at.key);
}
