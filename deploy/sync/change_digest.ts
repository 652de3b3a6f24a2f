/**
 * A digest of exactly what one sync changes, to tell two invalidations of one build apart.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { cacheControlFor } from "./cache_control.ts";
import { contentTypeFor } from "./content_type.ts";
import type { RemoteObject, SyncPlan } from "./plan.ts";

/**
 * Hex SHA-256 over every change of a sync: each upload as key, live MD5 before, new MD5 and the
 * headers it is sent with, each deletion as key and live MD5. Two syncs get the same digest only
 * when they make the same change from the same live state, so a CloudFront caller reference built
 * from it repeats only for a true retry: a dirty tree redeployed with a new edit, a rollback to a
 * build deployed before, or a refresh after a header fix all get a new invalidation.
 *
 * @param plan the sync plan
 * @param remote the live objects the plan was made against
 * @returns 64 hex characters (the digest of nothing when the plan changes nothing)
 */
export function changeDigest(plan: SyncPlan, remote: readonly RemoteObject[]): string {
  const before = new Map(remote.map((o) => [o.key, o.md5 ?? "?"]));
  const lines = [
    ...plan.uploads.map((u) =>
      [
        "put",
        u.file.key,
        before.get(u.file.key) ?? "-",
        u.file.md5,
        contentTypeFor(u.file.key),
        cacheControlFor(u.file.key),
      ].join("\t")
    ),
    ...plan.deletes.map((key) => ["delete", key, before.get(key) ?? "?"].join("\t")),
  ].sort();
  return createHash("sha256").update(lines.join("\n")).digest("hex");
}
