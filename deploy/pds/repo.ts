/**
 * The repository records `init` and `sync` read and write, through
 * `com.atproto.repo.getRecord`, `listRecords` and `putRecord` on the account's PDS.
 *
 * @module
 */
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
