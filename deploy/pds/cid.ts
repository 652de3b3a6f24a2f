/**
 * Content ids computed here, as the PDS computes them: a record's CID (DAG-CBOR, SHA-256) so a
 * document can name its announcement's `cid` in the same atomic write that creates the
 * announcement, and a blob's CID (raw, SHA-256) so a cover image that has not changed is not
 * uploaded again. The encoding is the IPLD project's own (`@ipld/dag-cbor`, `multiformats`).
 *
 * @module
 */
import * as dagCbor from "@ipld/dag-cbor";
import { CID } from "multiformats/cid";
import { sha256 } from "multiformats/hashes/sha2";

/** The raw codec (multicodec 0x55): blobs are addressed by their bytes. */
const RAW = 0x55;

/**
 * The CID of a record in its JSON form: `{"$link": …}` becomes a link and `{"$bytes": …}`
 * bytes, per the AT Protocol data model, then DAG-CBOR and SHA-256, CIDv1.
 *
 * @param record the record, as sent to `createRecord`/`applyWrites`
 * @returns the CID string (`bafyrei…`)
 */
export async function recordCid(record: unknown): Promise<string> {
  const bytes = dagCbor.encode(toIpld(record));
  return CID.createV1(dagCbor.code, await sha256.digest(bytes)).toString();
}

/**
 * The CID the PDS gives a blob of these bytes (`uploadBlob` answers it as `ref.$link`).
 *
 * @param bytes the blob
 * @returns the CID string (`bafkrei…`)
 */
export async function blobCid(bytes: Uint8Array): Promise<string> {
  return CID.createV1(RAW, await sha256.digest(bytes)).toString();
}

function toIpld(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toIpld);
  if (value === null || typeof value !== "object") return value;
  const object = value as Record<string, unknown>;
  const keys = Object.keys(object);
  if (keys.length === 1 && typeof object.$link === "string") return CID.parse(object.$link);
  if (keys.length === 1 && typeof object.$bytes === "string") {
    return Uint8Array.from(atob(object.$bytes), (c) => c.charCodeAt(0));
  }
  return Object.fromEntries(
    keys.filter((k) => object[k] !== undefined).map((k) => [k, toIpld(object[k])]),
  );
}
