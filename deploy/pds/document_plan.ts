/**
 * What `deploy pds sync` changes in the repository: the `site.standard.document` record each
 * local post should have, compared with the records the repository holds. Pure: the command
 * lists the records and applies the plan.
 *
 * @module
 */
import { isDeepStrictEqual } from "node:util";
import type { BlobRef } from "./cover.ts";
import type { Post } from "./posts.ts";

/** The record collection of a post. */
export const DOCUMENT_COLLECTION = "site.standard.document";

/** The fields of a `site.standard.document` record that sync owns (a type: it is a record). */
export type DocumentRecord = {
  readonly $type: typeof DOCUMENT_COLLECTION;
  /** AT-URI of the `site.standard.publication` record the post belongs to. */
  readonly site: string;
  readonly title: string;
  /** The post's URL path under the publication's `url`. */
  readonly path: string;
  readonly description: string;
  readonly publishedAt: string;
  readonly updatedAt?: string;
  /** Absent when the post has none. */
  readonly tags?: readonly string[];
  /** The post's text without markup. */
  readonly textContent?: string;
  readonly coverImage?: BlobRef;
};

/**
 * The fields sync owns: written from the post, and removed on update when the post no longer
 * has them (its tags or cover were taken out). Every other field, `bskyPostRef` included, is
 * the record's own and kept.
 */
export const OWNED_FIELDS: readonly string[] = [
  "$type",
  "site",
  "title",
  "path",
  "description",
  "publishedAt",
  "updatedAt",
  "tags",
  "textContent",
  "coverImage",
];

/** A record as `com.atproto.repo.listRecords` returns it. */
export interface RemoteRecord {
  /** `at://<did>/<collection>/<rkey>`. */
  readonly uri: string;
  /** Content id of this version (for `swapRecord`). */
  readonly cid: string;
  readonly value: Readonly<Record<string, unknown>>;
}

/** One record to write. */
export interface DocumentWrite {
  readonly rkey: string;
  /** The whole record to put: sync's fields over any others the record already carried. */
  readonly record: Readonly<Record<string, unknown>>;
  /** The post it comes from (its file, for the summary). */
  readonly post: Post;
  /** The version being replaced (updates only), so a concurrent edit is not overwritten. */
  readonly swapCid?: string;
}

/** A record of this publication with no local post: listed, never deleted. */
export interface OrphanRecord {
  readonly rkey: string;
  readonly uri: string;
  /** The record's `path`, when it has one. */
  readonly path?: string;
  /** The AT-URI of its announcement (`bskyPostRef.uri`), when it has one. */
  readonly announcement?: string;
}

/** The changes one sync makes. */
export interface DocumentPlan {
  readonly create: DocumentWrite[];
  readonly update: DocumentWrite[];
  /** Record keys already up to date. */
  readonly unchanged: string[];
  readonly orphans: OrphanRecord[];
}

/**
 * The record a post should have.
 *
 * @param post the post
 * @param publicationUri AT-URI of the publication record
 * @param cover the post's cover as a blob, when it has a usable one
 * @returns the record's sync-owned fields
 */
export function documentRecord(
  post: Post,
  publicationUri: string,
  cover?: BlobRef,
): DocumentRecord {
  return {
    $type: DOCUMENT_COLLECTION,
    site: publicationUri,
    title: post.title,
    path: post.path,
    description: post.description,
    publishedAt: post.publishedAt,
    ...(post.updatedAt !== undefined && { updatedAt: post.updatedAt }),
    ...(post.tags.length > 0 && { tags: post.tags }),
    ...(post.textContent !== "" && { textContent: post.textContent }),
    ...(cover !== undefined && { coverImage: cover }),
  };
}

/**
 * Plans a sync: create what is missing, update what differs in a field sync owns, leave the
 * rest, and list (never delete) this publication's records that no local post backs. Records
 * of another publication in the same repository are none of this sync's business.
 *
 * @param posts the local posts
 * @param remote every `site.standard.document` record in the repository
 * @param publicationUri AT-URI of this site's publication record
 * @param covers the usable cover of each post that has one, by record key
 * @returns the plan
 *
 * @example
 * ```ts
 * import type { Post } from "./posts.ts";
 * import type { RemoteRecord } from "./document_plan.ts";
 *
 * function toCreate(posts: readonly Post[], remote: readonly RemoteRecord[]) {
 *   const plan = planDocuments(posts, remote, "at://did:plc:x/site.standard.publication/self");
 *   return plan.create.length; // posts with no record yet
 * }
 * ```
 */
export function planDocuments(
  posts: readonly Post[],
  remote: readonly RemoteRecord[],
  publicationUri: string,
  covers: ReadonlyMap<string, BlobRef> = new Map(),
): DocumentPlan {
  const byKey = new Map(remote.map((r) => [rkeyOf(r.uri), r]));
  const plan: DocumentPlan = { create: [], update: [], unchanged: [], orphans: [] };
  const local = new Set<string>();
  for (const post of posts) {
    local.add(post.rkey);
    const wanted = documentRecord(post, publicationUri, covers.get(post.rkey));
    const existing = byKey.get(post.rkey);
    if (!existing) plan.create.push({ rkey: post.rkey, record: wanted, post });
    else if (sameOwnedFields(existing.value, wanted)) plan.unchanged.push(post.rkey);
    else {
      plan.update.push({
        rkey: post.rkey,
        record: { ...notOwned(existing.value), ...wanted },
        post,
        swapCid: existing.cid,
      });
    }
  }
  for (const record of remote) {
    const rkey = rkeyOf(record.uri);
    if (local.has(rkey) || record.value.site !== publicationUri) continue;
    const { path } = record.value;
    const announcement = announcementOf(record.value);
    plan.orphans.push({
      rkey,
      uri: record.uri,
      ...(typeof path === "string" && { path }),
      ...(announcement !== undefined && { announcement }),
    });
  }
  plan.orphans.sort((a, b) => a.rkey.localeCompare(b.rkey));
  return plan;
}

/** The record key: the last segment of an AT-URI. */
export function rkeyOf(uri: string): string {
  return uri.slice(uri.lastIndexOf("/") + 1);
}

/**
 * The AT-URI of a record's announcement (`bskyPostRef.uri`), when it has one.
 *
 * @param value a document record's value
 * @returns the URI
 */
export function announcementOf(value: Readonly<Record<string, unknown>>): string | undefined {
  const ref = value.bskyPostRef as { uri?: unknown } | undefined;
  return typeof ref?.uri === "string" ? ref.uri : undefined;
}

function notOwned(value: Readonly<Record<string, unknown>>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([k]) => !OWNED_FIELDS.includes(k)));
}

function sameOwnedFields(value: Readonly<Record<string, unknown>>, wanted: DocumentRecord) {
  const want = wanted as Readonly<Record<string, unknown>>;
  // Deep, and blind to key order: a PDS answers records from their CBOR form, whose map keys
  // are sorted (a blob ref comes back as ref, size, $type, mimeType).
  return OWNED_FIELDS.every((k) => isDeepStrictEqual(value[k], want[k]));
}
