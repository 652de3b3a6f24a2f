/**
 * The refresh-rotation half of the KV session store: one read path that gathers everything a
 * refresh decides on, and one atomic compare-and-swap that retires a token and stores its
 * successor. Kept apart from `kv_sessions.ts` so the hot path is easy to read and profile.
 *
 * @module
 */
import type { Clock } from "@org/shared";
import type { RefreshRecord, RefreshSnapshot, SessionFamily, UserRecord } from "./store.ts";
import { expireIn, K } from "./kv_keys.ts";

/**
 * Reads a refresh record by hash, then its family, its user and (for a retired record) its
 * successor in one `getMany`: two round trips whatever the token's state.
 *
 * @param kv an opened Deno KV
 * @param hash base64url SHA-256 of the presented token
 * @returns the snapshot, or `undefined` when no record has that hash
 */
export async function readRefreshSnapshot(
  kv: Deno.Kv,
  hash: string,
): Promise<RefreshSnapshot | undefined> {
  const entry = await kv.get<RefreshRecord>(K.refresh(hash));
  const record = entry.value;
  if (record === null || entry.versionstamp === null) return undefined;
  const keys: Deno.KvKey[] = [K.family(record.family_id), K.user(record.user_id)];
  if (record.successor) keys.push(K.refresh(record.successor.hash));
  const got = await kv.getMany<unknown[]>(keys);
  const family = got[0] as Deno.KvEntryMaybe<SessionFamily> | undefined;
  const user = got[1] as Deno.KvEntryMaybe<UserRecord> | undefined;
  const successor = got[2] as Deno.KvEntryMaybe<RefreshRecord> | undefined;
  return {
    record,
    family: family?.value ?? undefined,
    user: user?.value ?? undefined,
    successorLive: record.successor
      ? successor?.value !== null && successor?.value !== undefined &&
        successor.value.retired_at === undefined
      : undefined,
    versions: { record: entry.versionstamp, family: family?.versionstamp ?? null },
  };
}

/**
 * Retires the snapshot's record and stores `next` in one atomic commit, checked against the
 * versions read: a concurrent rotation or revocation makes it fail instead of forking the
 * family or resurrecting a revoked one.
 *
 * @param kv an opened Deno KV
 * @param clock time source for `expireIn`
 * @param snapshot what the caller read
 * @param retired the snapshot's record with `retired_at` and `successor` set
 * @param next the successor's record
 * @returns false when the record or family changed since the read
 */
export async function commitRotation(
  kv: Deno.Kv,
  clock: Clock,
  snapshot: RefreshSnapshot,
  retired: RefreshRecord,
  next: RefreshRecord,
): Promise<boolean> {
  const now = clock.now();
  const res = await kv.atomic()
    .check({ key: K.refresh(snapshot.record.hash), versionstamp: snapshot.versions.record })
    .check({ key: K.family(snapshot.record.family_id), versionstamp: snapshot.versions.family })
    .check({ key: K.refresh(next.hash), versionstamp: null })
    // The retired record lives as long as the family: presenting it later must still be
    // recognised as reuse, not shrugged off as an unknown token.
    .set(K.refresh(retired.hash), retired, { expireIn: expireIn(retired.expires_at, now) })
    .set(K.refresh(next.hash), next, { expireIn: expireIn(next.expires_at, now) })
    .commit();
  return res.ok;
}
