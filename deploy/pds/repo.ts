/**
 * The repository records `init` and `sync` read and write, through
 * `com.atproto.repo.getRecord`, `listRecords`, `putRecord`, `applyWrites` and `uploadBlob` on
 * the account's PDS.
 *
 * @module
 */
import type { BlobRef } from "./cover.ts";
import type { RemoteRecord } from "./document_plan.ts";
import { type PdsAgent, XrpcError } from "./session.ts";

/** Page size of `listRecords` (the protocol's maximum). */
const PAGE = 100;

/**
 * One record, or `null` when the repository has none under that key.
 *
 * @param agent the logged-in PDS
 * @param collection the NSID, e.g. `site.standard.publication`
 * @param rkey the record key
 * @returns the record
 */
export async function getRecord(
  agent: PdsAgent,
  collection: string,
  rkey: string,
): Promise<RemoteRecord | null> {
  try {
    const out = await agent.call("com.atproto.repo.getRecord", {
      params: { repo: agent.did, collection, rkey },
    });
    return out as RemoteRecord;
  } catch (err) {
    if (err instanceof XrpcError && err.error === "RecordNotFound") return null;
    throw err;
  }
}

/**
 * Every record of a collection, following the cursor.
 *
 * @param agent the logged-in PDS
 * @param collection the NSID
 * @returns the records
 */
export async function listRecords(agent: PdsAgent, collection: string): Promise<RemoteRecord[]> {
  const records: RemoteRecord[] = [];
  let cursor: string | undefined;
  do {
    const out = await agent.call("com.atproto.repo.listRecords", {
      params: {
        repo: agent.did,
        collection,
        limit: String(PAGE),
        ...(cursor !== undefined && { cursor }),
      },
    }) as { records?: RemoteRecord[]; cursor?: string };
    const page = out.records ?? [];
    records.push(...page);
    // Stop on an empty page too: a server that keeps returning a cursor must not loop us.
    cursor = page.length > 0 ? out.cursor : undefined;
  } while (cursor);
  return records;
}

/**
 * Creates or replaces a record.
 *
 * @param agent the logged-in PDS
 * @param collection the NSID
 * @param rkey the record key
 * @param record the record (with `$type`)
 * @param swapCid when replacing: the version read, so a concurrent change fails instead of
 *   being overwritten
 * @returns the record's URI and new content id
 */
export async function putRecord(
  agent: PdsAgent,
  collection: string,
  rkey: string,
  record: Readonly<Record<string, unknown>>,
  swapCid?: string,
): Promise<{ uri: string; cid: string }> {
  return await agent.call("com.atproto.repo.putRecord", {
    body: {
      repo: agent.did,
      collection,
      rkey,
      record,
      ...(swapCid !== undefined && { swapRecord: swapCid }),
    },
  }) as { uri: string; cid: string };
}

/** One write of an atomic {@linkcode applyWrites} batch. */
export type RepoWrite =
  | {
    readonly action: "create" | "update";
    readonly collection: string;
    readonly rkey: string;
    readonly value: Readonly<Record<string, unknown>>;
  }
  | { readonly action: "delete"; readonly collection: string; readonly rkey: string };

/**
 * Applies several writes as one repository commit: all of them or none. An announcement and
 * the document naming it are written so, hence a crash can never leave a post announced with
 * no record of it (which would announce it again).
 *
 * @param agent the logged-in PDS
 * @param writes the writes, in order
 */
export async function applyWrites(agent: PdsAgent, writes: readonly RepoWrite[]): Promise<void> {
  const $type = {
    create: "com.atproto.repo.applyWrites#create",
    update: "com.atproto.repo.applyWrites#update",
    delete: "com.atproto.repo.applyWrites#delete",
  } as const;
  await agent.call("com.atproto.repo.applyWrites", {
    body: {
      repo: agent.did,
      writes: writes.map(({ action, ...w }) => ({ $type: $type[action], ...w })),
    },
  });
}

/**
 * Uploads a blob; the PDS keeps it once a record references it.
 *
 * @param agent the logged-in PDS
 * @param bytes the content
 * @param mimeType its type
 * @returns the blob reference the PDS answers
 */
export async function uploadBlob(
  agent: PdsAgent,
  bytes: Uint8Array,
  mimeType: string,
): Promise<BlobRef> {
  const out = await agent.call("com.atproto.repo.uploadBlob", {
    body: new Blob([bytes as Uint8Array<ArrayBuffer>], { type: mimeType }),
  }) as { blob: BlobRef };
  return out.blob;
}
