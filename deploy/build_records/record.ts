/**
 * Build records: what a build stored in the site bucket, where it stored it, and how
 * `history` orders them. Pure: parsing, keys, sorting.
 *
 * Layout in the bucket:
 * - `build/<id>.zip`: the source the build ran on (kept for `rollback`)
 * - `build/<id>.routing.json`: where a MicroVM build puts the site's rules live (and the config's)
 * - `builds/<id>.json`: the {@linkcode BuildRecord}
 * - `builds/<id>.changed.json`: the {@linkcode ChangedManifest}
 *
 * @module
 */
import { keptFilesOf } from "../state/kept_files.ts";
import type { KeptFile } from "../sync/retention.ts";
import type { RulesReport } from "../routing/publish_routing.ts";

/** A build's state: launched, finished well, failed, or past its deadline. */
export type BuildStatus = "running" | "done" | "failed" | "timeout";

const STATUSES: ReadonlySet<string> = new Set(["running", "done", "failed", "timeout"]);

/** One build, as `builds/<id>.json` holds it. */
export interface BuildRecord {
  /** Record format version (1). */
  readonly version: 1;
  /** The build id (the revision, e.g. `3f2a1b9c8d7e` or `3f2a1b9c8d7e-dirty`). */
  readonly id: string;
  /** Where the build is. */
  readonly status: BuildStatus;
  /** Launch time, ISO 8601. */
  readonly startedAt: string;
  /** End time, ISO 8601; null while running. */
  readonly finishedAt: string | null;
  /** `finishedAt - startedAt` in ms; null while running. */
  readonly durationMs: number | null;
  /** Key of the source zip (`build/<id>.zip`). */
  readonly source: string;
  /** CloudWatch log group of the build's lines. */
  readonly logGroup: string;
  /** CloudWatch log stream of the build's lines. */
  readonly logStream: string;
  /** Why it failed (failed and timeout only). */
  readonly reason?: string;
  /** Files uploaded (done only). */
  readonly uploaded?: number;
  /** Files deleted (done only). */
  readonly deleted?: number;
  /** Files already live (done only). */
  readonly unchanged?: number;
  /** Bytes uploaded (done only). */
  readonly bytesUploaded?: number;
}

/** What a sync did: the counts and the keys to invalidate (the job's outcome, as stored). */
export interface SyncOutcome {
  /** Site-relative keys uploaded with new content or deleted: the invalidation input. */
  readonly changedKeys: readonly string[];
  /** Files uploaded. */
  readonly uploaded: number;
  /** Files deleted. */
  readonly deleted: number;
  /** Files already live. */
  readonly unchanged: number;
  /** Bytes uploaded. */
  readonly bytesUploaded: number;
  /** Digest of the changes (`sync/change_digest.ts`): the invalidation's caller reference. */
  readonly changeDigest?: string;
  /** Files of earlier builds kept live for open tabs after this sync (`retention.previousDays`). */
  readonly kept?: readonly KeptFile[];
  /** Kept files whose grace ended: deleted by this sync. */
  readonly expired?: readonly string[];
}

/**
 * What a finished build changed, as `builds/<id>.changed.json` holds it (`changeDigest`,
 * `kept` and `expired` are absent in older manifests).
 */
export interface ChangedManifest extends SyncOutcome {
  /** Manifest format version (1). */
  readonly version: 1;
  /** The build id. */
  readonly id: string;
  /** What the rules changed on CloudFront before the sync (absent: the job had no rules target). */
  readonly rules?: RulesReport;
  /** The install and build: cache hit, step times (absent: nothing was built). */
  readonly build?: BuildReport;
}

/** What a job's install and build did: whether the build cache served it, and each step's time. */
export interface BuildReport {
  /** Whether the dependencies came from the cache. */
  readonly cacheHit: boolean;
  /** Whether framework caches were restored. */
  readonly frameworkCacheHit: boolean;
  /** The dependency cache's key; none when the install is not cached or the cache is off. */
  readonly cacheKey?: string;
  /** Milliseconds: cache restore, install, build, cache save. */
  readonly timings: {
    readonly cacheRestoreMs: number;
    readonly installMs: number;
    readonly buildMs: number;
    readonly cacheSaveMs: number;
  };
}

/** Key prefix of the build records and manifests. */
export const RECORDS_PREFIX = "builds/";

/**
 * Key of a build's source zip.
 *
 * @param id build id
 * @returns `build/<id>.zip`
 */
export function sourceKey(id: string): string {
  return `build/${id}.zip`;
}

/**
 * Key of a build's record.
 *
 * @param id build id
 * @returns `builds/<id>.json`
 */
export function recordKey(id: string): string {
  return `${RECORDS_PREFIX}${id}.json`;
}

/**
 * Key of a build's changed-keys manifest.
 *
 * @param id build id
 * @returns `builds/<id>.changed.json`
 */
export function manifestKey(id: string): string {
  return `${RECORDS_PREFIX}${id}.changed.json`;
}

/**
 * Key of the rules target a MicroVM build reads (the config's rules and where they go, too
 * large for the 16 KB run payload).
 *
 * @param id build id
 * @returns `build/<id>.routing.json`
 */
export function routingKey(id: string): string {
  return `build/${id}.routing.json`;
}

/**
 * Whether a key under `builds/` is a record (not a manifest).
 *
 * @param key an object key
 * @returns true for `builds/<id>.json`
 */
export function isRecordKey(key: string): boolean {
  return key.startsWith(RECORDS_PREFIX) && key.endsWith(".json") &&
    !key.endsWith(".changed.json") && !key.slice(RECORDS_PREFIX.length).includes("/");
}

/**
 * Parses a stored JSON object (pure): what every record reader does first.
 *
 * @param text the object's body
 * @returns the object, or `not JSON` / `not an object`
 */
export function parseJsonObject(
  text: string,
): { object: Record<string, unknown> } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: "not JSON" };
  }
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return { error: "not an object" };
  }
  return { object: raw as Record<string, unknown> };
}

/**
 * Checks a stored record's shape.
 *
 * @param text the object's body
 * @returns the record, or a reason why it is not one
 */
export function parseBuildRecord(text: string): { record: BuildRecord } | { error: string } {
  const parsed = parseJsonObject(text);
  if ("error" in parsed) return parsed;
  const r = parsed.object;
  if (typeof r.id !== "string" || r.id === "") return { error: "no id" };
  if (typeof r.status !== "string" || !STATUSES.has(r.status)) {
    return { error: `unknown status ${JSON.stringify(r.status)}` };
  }
  if (typeof r.startedAt !== "string" || Number.isNaN(Date.parse(r.startedAt))) {
    return { error: "no valid startedAt" };
  }
  if (r.finishedAt !== null && r.finishedAt !== undefined) {
    if (typeof r.finishedAt !== "string" || Number.isNaN(Date.parse(r.finishedAt))) {
      return { error: "finishedAt is not a time" };
    }
  }
  if (r.durationMs !== null && r.durationMs !== undefined && typeof r.durationMs !== "number") {
    return { error: "durationMs is not a number" };
  }
  for (const k of ["source", "logGroup", "logStream"]) {
    if (typeof r[k] !== "string") return { error: `no ${k}` };
  }
  return {
    record: {
      ...(r as unknown as BuildRecord),
      finishedAt: (r.finishedAt as string | undefined) ?? null,
      durationMs: (r.durationMs as number | undefined) ?? null,
    },
  };
}

/**
 * Checks a stored manifest's shape.
 *
 * @param text the object's body
 * @returns the manifest, or undefined when it is not one
 */
export function parseChangedManifest(text: string): ChangedManifest | undefined {
  try {
    const m = JSON.parse(text) as Partial<ChangedManifest>;
    if (
      typeof m !== "object" || m === null || !Array.isArray(m.changedKeys) ||
      !m.changedKeys.every((k) => typeof k === "string")
    ) return undefined;
    return {
      version: 1,
      id: String(m.id ?? ""),
      changedKeys: m.changedKeys,
      uploaded: Number(m.uploaded ?? 0),
      deleted: Number(m.deleted ?? 0),
      unchanged: Number(m.unchanged ?? 0),
      bytesUploaded: Number(m.bytesUploaded ?? 0),
      ...(typeof m.changeDigest === "string" ? { changeDigest: m.changeDigest } : {}),
      ...(m.kept === undefined ? {} : { kept: keptFilesOf(m.kept) }),
      ...(Array.isArray(m.expired)
        ? { expired: m.expired.filter((k): k is string => typeof k === "string") }
        : {}),
      ...(isRulesReport(m.rules) ? { rules: m.rules } : {}),
      ...(isBuildReport(m.build) ? { build: m.build } : {}),
    };
  } catch {
    return undefined;
  }
}

/** Whether a manifest's `build` has the report's shape (pure). */
function isBuildReport(v: unknown): v is BuildReport {
  const b = v as Partial<BuildReport> | null | undefined;
  const t = b?.timings;
  return typeof b === "object" && b !== null && typeof b.cacheHit === "boolean" &&
    typeof b.frameworkCacheHit === "boolean" &&
    (b.cacheKey === undefined || typeof b.cacheKey === "string") &&
    typeof t === "object" && t !== null &&
    [t.cacheRestoreMs, t.installMs, t.buildMs, t.cacheSaveMs].every((n) => typeof n === "number");
}

/** Whether a manifest's `rules` has the report's shape (pure). */
function isRulesReport(v: unknown): v is RulesReport {
  const r = v as Partial<RulesReport> | null | undefined;
  return typeof r === "object" && r !== null && typeof r.redirects === "number" &&
    typeof r.headers === "number" && (r.table === "inline" || r.table === "store") &&
    typeof r.storeEntries === "number" && typeof r.changed === "boolean" &&
    Array.isArray(r.changes) && r.changes.every((c) => typeof c === "string");
}

/**
 * Orders records newest first: by `startedAt`, then by id for a stable order.
 *
 * @param records any order
 * @returns a new array, newest first
 */
export function newestFirst(records: readonly BuildRecord[]): BuildRecord[] {
  return [...records].sort((a, b) =>
    Date.parse(b.startedAt) - Date.parse(a.startedAt) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)
  );
}

/**
 * The record of a build that has just started (pure): the MicroVM builder writes it at launch,
 * and the job inside the VM finishes from it.
 *
 * @param id build id
 * @param started launch time (ISO 8601), the source zip's key, and where the build logs
 * @returns the `running` record
 */
export function runningRecord(
  id: string,
  started: Pick<BuildRecord, "startedAt" | "source" | "logGroup" | "logStream">,
): BuildRecord {
  return {
    version: 1,
    id,
    status: "running",
    startedAt: started.startedAt,
    finishedAt: null,
    durationMs: null,
    source: started.source,
    logGroup: started.logGroup,
    logStream: started.logStream,
  };
}

/**
 * A finished record from a running one (or a rewrite of a finished one).
 *
 * @param record the record so far
 * @param finishedAtMs end time
 * @param change the new status and what goes with it
 * @returns the finished record
 */
export function finishRecord(
  record: BuildRecord,
  finishedAtMs: number,
  change: Pick<BuildRecord, "status"> & Partial<BuildRecord>,
): BuildRecord {
  return {
    ...record,
    ...change,
    finishedAt: new Date(finishedAtMs).toISOString(),
    durationMs: Math.max(0, finishedAtMs - Date.parse(record.startedAt)),
  };
}
