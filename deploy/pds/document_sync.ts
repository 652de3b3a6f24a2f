/**
 * Applies a sync: lists the repository's `site.standard.document` records, plans against the
 * local posts ({@linkcode planDocuments}) and writes what is missing or changed. Nothing is
 * ever deleted; records without a local post come back as orphans for the summary.
 *
 * @module
 */
import { DOCUMENT_COLLECTION, type OrphanRecord, planDocuments } from "./document_plan.ts";
import type { Post } from "./posts.ts";
import { listRecords, putRecord } from "./repo.ts";
import type { PdsAgent } from "./session.ts";

/** What one sync did, as the summary and `--json` report it. */
export interface DocumentSyncResult {
  /** Paths of posts whose record was created. */
  readonly created: string[];
  /** Paths of posts whose record was updated. */
  readonly updated: string[];
  /** How many records were already up to date. */
  readonly unchanged: number;
  /** This publication's records with no local post (kept; listed so the owner can decide). */
  readonly orphans: OrphanRecord[];
}

/**
 * Syncs the posts' records.
 *
 * @param agent the logged-in PDS
 * @param posts the local posts (drafts already left out)
 * @param publicationUri the publication's AT-URI
 * @param dryRun plan only
 * @returns what changed (or would change)
 */
export async function syncDocuments(
  agent: PdsAgent,
  posts: readonly Post[],
  publicationUri: string,
  dryRun = false,
): Promise<DocumentSyncResult> {
  const remote = await listRecords(agent, DOCUMENT_COLLECTION);
  const plan = planDocuments(posts, remote, publicationUri);
  if (!dryRun) {
    // One at a time: a repository commit per write, and the PDS rate-limits writes anyway.
    for (const write of [...plan.create, ...plan.update]) {
      await putRecord(agent, DOCUMENT_COLLECTION, write.rkey, write.record, write.swapCid);
    }
  }
  return {
    created: plan.create.map((w) => w.post.path),
    updated: plan.update.map((w) => w.post.path),
    unchanged: plan.unchanged.length,
    orphans: plan.orphans,
  };
}
