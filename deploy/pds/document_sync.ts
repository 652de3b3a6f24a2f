/**
 * Applies a sync: lists the repository's `site.standard.document` records, plans against the
 * local posts ({@linkcode planDocuments}) and writes what is missing or changed, uploading a
 * cover only when the PDS does not hold it yet. A new post is announced on Bluesky when asked:
 * the announcement and its document (whose `bskyPostRef` names it) are one atomic commit, so
 * a post is never announced without the record that proves it (a re-run, or another machine,
 * sees the record and does not announce again). Records without a local post are listed, and
 * deleted only with `prune` (their announcement only when asked too).
 *
 * @module
 */
import { announcementRecord, announcementText, POST_COLLECTION } from "./announcement.ts";
import { recordCid } from "./cid.ts";
import type { BlobRef, LocalBlob } from "./cover.ts";
import {
  DOCUMENT_COLLECTION,
  type DocumentWrite,
  type OrphanRecord,
  planDocuments,
  type RemoteRecord,
} from "./document_plan.ts";
import type { Post } from "./posts.ts";
import { parseAtUri } from "./publication.ts";
import { applyWrites, getRecord, listRecords, putRecord, uploadBlob } from "./repo.ts";
import { tidFromClock } from "./rkey.ts";
import type { PdsAgent } from "./session.ts";

/** What one sync did, as the summary and `--json` report it. */
export interface DocumentSyncResult {
  /** Paths of posts whose record was created. */
  readonly created: string[];
  /** Paths of posts whose record was updated. */
  readonly updated: string[];
  /** How many records were already up to date. */
  readonly unchanged: number;
  /** Paths of the new posts announced on Bluesky (with their record, in one commit). */
  readonly announced: string[];
  /** This publication's records with no local post (kept unless pruned). */
  readonly orphans: OrphanRecord[];
  /** AT-URIs deleted by `prune`: orphan records, and announcements when asked. */
  readonly pruned: string[];
  /** What went wrong without stopping the sync (a cover left out, an announcement failed). */
  readonly warnings: string[];
}

/** How a sync announces new posts (`pds.announce` on, no `--no-announce`). */
export interface AnnounceOptions {
  /** `pds.announce.template`. */
  readonly template: string;
  /** `https://<domain>`: the posts' URLs start with it. */
  readonly origin: string;
  /** Milliseconds since the epoch (the post's `createdAt` and key). */
  readonly now: () => number;
  /** Ten random bits for the post key's clock id. */
  readonly random10: () => number;
}

/** Deleting the records of posts that are gone (`--prune`). */
export interface PruneOptions {
  /** Also delete each pruned record's announcement (`--prune-announcements`). */
  readonly announcements: boolean;
  /** Asked once, before any write, with the records to delete; false deletes nothing. */
  readonly confirm: (orphans: readonly OrphanRecord[]) => Promise<boolean>;
}

/** What a sync does besides creating and updating records. */
export interface SyncOptions {
  /** Plan only: nothing is uploaded or written. */
  readonly dryRun?: boolean;
  /** The usable cover of each post that has one, by record key. */
  readonly covers?: ReadonlyMap<string, LocalBlob>;
  readonly announce?: AnnounceOptions;
  readonly prune?: PruneOptions;
}

/**
 * Syncs the posts' records.
 *
 * @param agent the logged-in PDS
 * @param posts the local posts (drafts already left out)
 * @param publicationUri the publication's AT-URI
 * @param options covers, announcing, pruning, dry run
 * @returns what changed (or would change)
 */
export async function syncDocuments(
  agent: PdsAgent,
  posts: readonly Post[],
  publicationUri: string,
  options: SyncOptions = {},
): Promise<DocumentSyncResult> {
  const covers = options.covers ?? new Map<string, LocalBlob>();
  const remote = await listRecords(agent, DOCUMENT_COLLECTION);
  const plan = planDocuments(
    posts,
    remote,
    publicationUri,
    new Map([...covers].map(([rkey, blob]) => [rkey, blob.ref])),
  );
  const prune = options.prune && plan.orphans.length > 0 &&
    await options.prune.confirm(plan.orphans);
  const result = {
    created: plan.create.map((w) => w.post.path),
    updated: plan.update.map((w) => w.post.path),
    unchanged: plan.unchanged.length,
    announced: [] as string[],
    orphans: plan.orphans,
    pruned: [] as string[],
    warnings: [] as string[],
  };
  if (options.dryRun) {
    if (options.announce) result.announced.push(...result.created);
    return result;
  }
  const byKey = new Map(remote.map((r) => [r.uri.slice(r.uri.lastIndexOf("/") + 1), r]));
  // One at a time: a repository commit per write, and the PDS rate-limits writes anyway.
  for (const write of plan.update) {
    const record = await withUploadedCover(agent, write, byKey.get(write.rkey), covers, result);
    await putRecord(agent, DOCUMENT_COLLECTION, write.rkey, record, write.swapCid);
  }
  for (const write of plan.create) {
    const record = await withUploadedCover(agent, write, undefined, covers, result);
    if (!options.announce) {
      await putRecord(agent, DOCUMENT_COLLECTION, write.rkey, record);
      continue;
    }
    const outcome = await announce(agent, write.post, record, options.announce, result);
    if (outcome === "announced") result.announced.push(write.post.path);
    if (outcome === "failed") result.created.splice(result.created.indexOf(write.post.path), 1);
  }
  if (prune) {
    for (const orphan of plan.orphans) {
      result.pruned.push(...await pruneOrphan(agent, orphan, options.prune!.announcements, result));
    }
  }
  return result;
}

/**
 * The record to write, its cover uploaded when the PDS does not hold that blob yet (a new
 * cover, or a new record). A failed upload leaves the cover out, with a warning.
 */
async function withUploadedCover(
  agent: PdsAgent,
  write: DocumentWrite,
  existing: RemoteRecord | undefined,
  covers: ReadonlyMap<string, LocalBlob>,
  result: { warnings: string[] },
): Promise<Readonly<Record<string, unknown>>> {
  const cover = covers.get(write.rkey);
  const held = (existing?.value.coverImage as BlobRef | undefined)?.ref?.$link;
  if (!cover || held === cover.ref.ref.$link) return write.record;
  try {
    const ref = await uploadBlob(agent, cover.bytes, cover.ref.mimeType);
    return { ...write.record, coverImage: ref };
  } catch (err) {
    result.warnings.push(
      `${write.post.path}: the cover could not be uploaded, the record goes without it ` +
        `(${err instanceof Error ? err.message : String(err)})`,
    );
    const { coverImage: _, ...rest } = write.record;
    return rest;
  }
}

/**
 * Creates the announcement and the document naming it in one commit. A failure is a warning
 * and writes neither, so the next sync tries both again.
 *
 * @returns `announced`; `failed` (nothing written); `plain` (the record alone: the template
 *   leaves no room for the text)
 */
async function announce(
  agent: PdsAgent,
  post: Post,
  record: Readonly<Record<string, unknown>>,
  options: AnnounceOptions,
  result: { warnings: string[] },
): Promise<"announced" | "failed" | "plain"> {
  const card = {
    title: post.title,
    description: post.description,
    url: new URL(post.path, options.origin).href,
  };
  const text = announcementText(options.template, card);
  if (!text) {
    result.warnings.push(
      `${post.path}: pds.announce.template leaves no room for the URL within 300 graphemes; ` +
        "published without an announcement",
    );
    await putRecord(agent, DOCUMENT_COLLECTION, post.rkey, record);
    return "plain";
  }
  const now = options.now();
  const value = announcementRecord(
    text,
    card,
    new Date(now).toISOString(),
    record.coverImage as BlobRef | undefined,
  );
  const rkey = tidFromClock(now, options.random10());
  const bskyPostRef = {
    uri: `at://${agent.did}/${POST_COLLECTION}/${rkey}`,
    cid: await recordCid(value),
  };
  try {
    await applyWrites(agent, [
      { action: "create", collection: POST_COLLECTION, rkey, value },
      {
        action: "create",
        collection: DOCUMENT_COLLECTION,
        rkey: post.rkey,
        value: { ...record, bskyPostRef },
      },
    ]);
    return "announced";
  } catch (err) {
    result.warnings.push(
      `${post.path}: not published: announcing it failed, so neither the announcement nor the ` +
        `record was written; the next sync tries again (${
          err instanceof Error ? err.message : String(err)
        })`,
    );
    return "failed";
  }
}

/** Deletes an orphan record, and its announcement when asked and it is in this repository. */
async function pruneOrphan(
  agent: PdsAgent,
  orphan: OrphanRecord,
  announcements: boolean,
  result: { warnings: string[] },
): Promise<string[]> {
  const writes = [
    { action: "delete" as const, collection: DOCUMENT_COLLECTION, rkey: orphan.rkey },
  ];
  const deleted = [orphan.uri];
  const post = orphan.announcement ? parseAtUri(orphan.announcement) : undefined;
  if (announcements && orphan.announcement) {
    if (post?.did !== agent.did || post.collection !== POST_COLLECTION) {
      result.warnings.push(
        `${orphan.uri}: its announcement ${orphan.announcement} is not a post of this account; kept`,
      );
    } else if (await getRecord(agent, POST_COLLECTION, post.rkey) !== null) {
      // Already deleted by hand: a delete of a missing record would fail the whole commit.
      writes.push({ action: "delete", collection: POST_COLLECTION, rkey: post.rkey });
      deleted.push(orphan.announcement);
    }
  }
  await applyWrites(agent, writes);
  return deleted;
}
