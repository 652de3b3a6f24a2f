/**
 * The build agent's protocol: the job the CLI hands a MicroVM (as the run hook payload), and
 * the marker lines the agent logs so the CLI, tailing the log stream, knows how it ended.
 * Pure: shape checks and marker text.
 *
 * @module
 */
import type { BuildPaths } from "../../builder.ts";
import type { SeoSettings } from "../../../seo/policy.ts";

/** Version of the job format; the agent refuses any other. */
export const JOB_VERSION = 1;

/** One build for the agent, sent as `runHookPayload` (JSON, at most 16 KB). */
export interface AgentJob {
  /** Format version ({@linkcode JOB_VERSION}). */
  readonly version: 1;
  /** The build id (names records, markers, the source zip). */
  readonly buildId: string;
  /** The site bucket (source zip, records and the live site live there). */
  readonly bucket: string;
  /** The bucket's region. */
  readonly region: string;
  /** Key of the source zip, `build/<id>.zip`. */
  readonly sourceKey: string;
  /** Key prefix of the live site, normally `site/`. */
  readonly prefix: string;
  /** `paths.app` and `paths.dist`. */
  readonly paths: BuildPaths;
  /** Config `seo`. */
  readonly seo: SeoSettings;
  /** Production and not a preview: drives `seo` `auto`. */
  readonly isProduction: boolean;
  /** Site origin for the sitemap; null when unknown. */
  readonly origin: string | null;
  /** Object tags for every uploaded file. */
  readonly tags: Readonly<Record<string, string>>;
  /** `--refresh`: re-upload every file (and count it as changed for invalidation). */
  readonly refresh?: boolean;
  /** `--force`: allow a sync that deletes most of the live site. */
  readonly force?: boolean;
  /** Keep what the build no longer has for open tabs. */
  readonly retention?: AgentRetention;
  /** Config `retention.buildsDays`: keep the synced output restorable; absent: not kept. */
  readonly keepOutputDays?: number;
  /** `microvm.maxDurationSeconds`: the install+build deadline inside the VM. */
  readonly maxDurationSeconds: number;
  /** Launch time, ISO 8601 (the record's `startedAt`). */
  readonly startedAt: string;
  /** Log group the VM's output goes to (copied into the record). */
  readonly logGroup: string;
  /** Log stream the VM's output goes to (copied into the record). */
  readonly logStream: string;
  /**
   * Key of the rules target (`build/<id>.routing.json`): the job puts the site's redirect and
   * header rules live before its sync. Absent: a preview, whose rules are not applied.
   */
  readonly routingKey?: string;
}

/**
 * How the agent keeps the files the build no longer has: the job's retention, with the kept
 * list as a key to read rather than inline (it may outgrow the 16 KB payload).
 */
export interface AgentRetention {
  /** Config `retention.previousDays`. */
  readonly previousDays: number;
  /** The deploy's time on the CLI's clock (ISO 8601). */
  readonly now: string;
  /** The kept list's copy, `build/<id>.kept.json`; absent when nothing is kept. */
  readonly keptKey?: string;
}

/** The largest run hook payload the service accepts. */
export const MAX_PAYLOAD_BYTES = 16 * 1024;

/**
 * Checks a job's shape (the agent's first step; a bad job fails with the reason).
 *
 * @param text the payload
 * @returns the job, or why it is not one
 */
export function parseAgentJob(text: string): { job: AgentJob } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { error: "the job is not JSON" };
  }
  if (typeof raw !== "object" || raw === null) return { error: "the job is not an object" };
  const j = raw as Record<string, unknown>;
  // Some hook listeners wrap the payload; accept `{ "payload": "<job JSON>" }` too.
  if (typeof j.payload === "string" && j.version === undefined) return parseAgentJob(j.payload);
  if (j.version !== JOB_VERSION) return { error: `unsupported job version ${String(j.version)}` };
  for (
    const k of ["buildId", "bucket", "region", "sourceKey", "prefix", "startedAt", "logGroup"]
  ) {
    if (typeof j[k] !== "string") return { error: `the job has no ${k}` };
  }
  if (typeof j.logStream !== "string") return { error: "the job has no logStream" };
  if (!/^[\w.-]+$/.test(j.buildId as string)) return { error: "the build id has bad characters" };
  const paths = j.paths as Record<string, unknown> | undefined;
  if (typeof paths?.app !== "string" || typeof paths.dist !== "string") {
    return { error: "the job has no paths.app/paths.dist" };
  }
  const seo = j.seo as Record<string, unknown> | undefined;
  if (typeof seo?.robots !== "string" || typeof seo.sitemap !== "string") {
    return { error: "the job has no seo settings" };
  }
  if (typeof j.isProduction !== "boolean") return { error: "the job has no isProduction" };
  if (j.origin !== null && typeof j.origin !== "string") return { error: "bad origin" };
  if (typeof j.maxDurationSeconds !== "number" || j.maxDurationSeconds <= 0) {
    return { error: "the job has no maxDurationSeconds" };
  }
  if (typeof j.tags !== "object" || j.tags === null) return { error: "the job has no tags" };
  if (j.routingKey !== undefined && typeof j.routingKey !== "string") {
    return { error: "bad routingKey" };
  }
  for (const k of ["refresh", "force"]) {
    if (j[k] !== undefined && typeof j[k] !== "boolean") return { error: `bad ${k}` };
  }
  if (j.retention !== undefined) {
    const r = j.retention as Record<string, unknown> | null;
    if (
      r === null || typeof r !== "object" ||
      (r.keptKey !== undefined && typeof r.keptKey !== "string") ||
      typeof r.now !== "string" || !Number.isFinite(Date.parse(r.now)) ||
      !Number.isInteger(r.previousDays) || (r.previousDays as number) < 0
    ) return { error: "bad retention" };
  }
  const keep = j.keepOutputDays;
  if (keep !== undefined && (typeof keep !== "number" || !Number.isInteger(keep) || keep < 1)) {
    return { error: "bad keepOutputDays" };
  }
  return { job: raw as AgentJob };
}

/**
 * The line the agent logs when a build succeeded.
 *
 * @param id build id
 * @returns `build:done:<id>`
 */
export function doneMarker(id: string): string {
  return `build:done:${id}`;
}

/**
 * The line the agent logs when a build failed; the reason is flattened to one line.
 *
 * @param id build id
 * @param reason why
 * @returns `build:failed:<id>:<reason>`
 */
export function failedMarker(id: string, reason: string): string {
  return `build:failed:${id}:${reason.replace(/\s*\r?\n\s*/g, " ").trim()}`;
}

/** A marker line, parsed. */
export type Marker =
  | { readonly kind: "done"; readonly id: string }
  | { readonly kind: "failed"; readonly id: string; readonly reason: string };

/**
 * Recognizes a marker line for one build (markers of other builds are ignored).
 *
 * @param line a log line
 * @param id the build id waited for
 * @returns the marker, or undefined for an ordinary line
 */
export function parseMarker(line: string, id: string): Marker | undefined {
  const text = line.trim();
  if (text === doneMarker(id)) return { kind: "done", id };
  const failed = `build:failed:${id}:`;
  if (text.startsWith(failed)) return { kind: "failed", id, reason: text.slice(failed.length) };
  return undefined;
}
