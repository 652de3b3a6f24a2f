/**
 * What `deploy plan` and `deploy deploy` show, as pure functions of the pipeline's results: the
 * upload progress bar, the human lines and the `--json` shapes (durations and byte counts come
 * from `units.ts`).
 *
 * @module
 */
import type { DeployCacheReport, DeployPlan, DeploySteps, DeploySummary } from "./deploy.ts";
import type { SyncProgress } from "../sync/engine.ts";
import type { RulesReport } from "../routing/publish_routing.ts";
import { formatBytes, humanDuration } from "../units.ts";

/**
 * One frame of the upload progress bar: `uploading [#####-----] 12/40 files  1.2 MB/4.0 MB`;
 * deletions show as `deleting 3/5`.
 *
 * @param p the sync's progress event
 * @param width characters between the brackets
 * @returns the line (no newline, no escape codes)
 */
export function progressBar(p: SyncProgress, width = 24): string {
  if (p.phase === "delete") return `deleting ${p.done}/${p.total}`;
  const ratio = p.totalBytes > 0 ? p.bytes / p.totalBytes : p.total > 0 ? p.done / p.total : 1;
  const filled = Math.min(width, Math.round(Math.max(0, ratio) * width));
  return `uploading [${"#".repeat(filled)}${"-".repeat(width - filled)}] ${p.done}/${p.total} ` +
    `files  ${formatBytes(p.bytes)}/${formatBytes(p.totalBytes)}`;
}

/** The `--json` output of `deploy plan`: the plan with `env` and `builder` (`local`, or `none`). */
export type PlanJson =
  & { readonly env: string; readonly builder: string }
  & NullForUndefined<DeployPlan>;

/**
 * The plan as `--json` data.
 *
 * @param env environment name
 * @param builder `local` or `none`
 * @param plan the pipeline's plan
 * @returns the JSON shape
 */
export function planJson(env: string, builder: string, plan: DeployPlan): PlanJson {
  const { revision, uploads, deletes, kept, expired, unchanged, bytes, invalidation, warnings } =
    plan;
  // Named, not spread: the JSON keeps this key order whatever order the plan was built in.
  return {
    env,
    builder,
    revision,
    uploads,
    deletes,
    kept,
    expired,
    unchanged,
    bytes,
    invalidation,
    rules: plan.rules ?? null,
    cache: plan.cache,
    steps: plan.steps,
    warnings,
  };
}

/**
 * The plan for people: one line per upload and deletion, the totals, the invalidation.
 *
 * @param env environment name
 * @param plan the pipeline's plan
 * @returns the lines
 */
export function planLines(env: string, plan: DeployPlan): string[] {
  const lines = [`Plan for ${env} at revision ${plan.revision}:`];
  for (const u of plan.uploads) {
    lines.push(`  upload  ${u.key} (${u.reason}, ${formatBytes(u.size)})`);
  }
  const expired = new Set(plan.expired);
  for (const key of plan.deletes) {
    lines.push(`  delete  ${key}${expired.has(key) ? " (kept for open tabs, grace over)" : ""}`);
  }
  for (const f of plan.kept) {
    lines.push(`  keep    ${f.key} (${formatBytes(f.size)}, for open tabs until ${f.until})`);
  }
  lines.push(
    `${plan.uploads.length} to upload (${formatBytes(plan.bytes)}), ${plan.deletes.length} to ` +
      `delete, ${plan.unchanged} unchanged`,
  );
  const kept = keptLine(plan, " kept");
  if (kept) lines.push(kept);
  lines.push(
    plan.invalidation.length === 0
      ? "nothing to invalidate"
      : `would invalidate ${plan.invalidation.length} path(s): ${plan.invalidation.join(" ")}`,
  );
  if (plan.rules) lines.push(...rulesLines(plan.rules, ""));
  lines.push(`cache ${cacheText(plan.cache)}`, `time  ${stepsText(plan.steps)}`);
  lines.push("Nothing was changed (plan only).");
  return lines;
}

const files = (n: number) => `${n} file${n === 1 ? "" : "s"}`;

/**
 * `2 files (1.2 KB) of earlier builds<verb> for open tabs; 1 file deleted after the grace`, or
 * undefined when nothing is kept nor expired.
 */
function keptLine(
  r: { readonly kept: DeployPlan["kept"]; readonly expired: readonly string[] },
  verb: string,
): string | undefined {
  if (r.kept.length === 0 && r.expired.length === 0) return undefined;
  const bytes = r.kept.reduce((n, f) => n + f.size, 0);
  return `${files(r.kept.length)} (${formatBytes(bytes)}) of earlier builds${verb} for open tabs` +
    (r.expired.length > 0 ? `; ${files(r.expired.length)} deleted after the grace` : "");
}

/** `T` with every optional-by-`undefined` field as `null` instead: JSON has no `undefined`. */
export type NullForUndefined<T> = {
  readonly [K in keyof T]: undefined extends T[K] ? Exclude<T[K], undefined> | null : T[K];
};

/**
 * The `--json` output of `deploy deploy`: the pipeline's summary with `env` and `builder`
 * (`local` or `microvm`), and `null` where the summary has nothing (no invalidation request, no
 * known URL).
 */
export type SummaryJson =
  & { readonly env: string; readonly builder: string }
  & NullForUndefined<DeploySummary>;

/**
 * The summary as `--json` data (`null` where the summary has nothing).
 *
 * @param env environment name
 * @param builder the builder's name
 * @param s the pipeline's summary
 * @returns the JSON shape
 */
export function summaryJson(env: string, builder: string, s: DeploySummary): SummaryJson {
  return {
    env,
    builder,
    revision: s.revision,
    uploaded: s.uploaded,
    deleted: s.deleted,
    kept: s.kept,
    expired: s.expired,
    unchanged: s.unchanged,
    bytesUploaded: s.bytesUploaded,
    durationMs: s.durationMs,
    invalidation: s.invalidation
      ? { id: s.invalidation.id, paths: [...s.invalidation.paths] }
      : null,
    url: s.url ?? null,
    changedKeys: s.changedKeys,
    rules: s.rules ?? null,
    cache: s.cache,
    steps: s.steps,
    warnings: s.warnings,
  };
}

/** The labels of {@linkcode DeploySteps}, in the order a deploy runs them. */
const STEP_LABELS: readonly (readonly [keyof DeploySteps, string])[] = [
  ["revision", "revision"],
  ["zip", "zip"],
  ["cacheRestore", "cache restore"],
  ["install", "install"],
  ["build", "build"],
  ["rules", "rules"],
  ["sync", "sync"],
  ["invalidation", "invalidation"],
];

/**
 * Where the time went, for people: `revision 40 ms · zip 0.2 s · … · invalidation 90 ms`.
 *
 * @param steps milliseconds per step
 * @param shown the steps to show (default every one; a preview applies no rules and
 *   invalidates nothing)
 * @returns one line
 */
export function stepsText(
  steps: DeploySteps,
  shown: readonly (keyof DeploySteps)[] = STEP_LABELS.map(([key]) => key),
): string {
  return STEP_LABELS.filter(([key]) => shown.includes(key)).map(([key, label]) => {
    const ms = Math.round(steps[key]);
    return `${label} ${ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`}`;
  }).join(" · ");
}

/**
 * The build cache's outcome, for people.
 *
 * @param cache the report
 * @returns e.g. `hit (dependencies restored), framework caches restored`
 */
export function cacheText(cache: DeployCacheReport): string {
  if (!cache.used) return "not used";
  const deps = cache.key === null
    ? "dependencies not cached (no lockfile, or Deno)"
    : cache.hit
    ? "hit: dependencies restored"
    : "miss: dependencies installed and kept for the next build";
  return `${deps}${cache.frameworkHit ? "; framework caches restored" : ""}`;
}

/**
 * The rules for people: how many, where the redirect table is, and each change on CloudFront
 * (or that there was none).
 *
 * @param r the report
 * @param indent the lines' indent
 * @returns the lines
 */
export function rulesLines(r: RulesReport, indent: string): string[] {
  const table = r.table === "store"
    ? `in the key value store, ${r.storeEntries} entries`
    : "in the function";
  return [
    `${indent}rules${
      indent ? "         " : " "
    }${r.redirects} redirect(s) ${table}, ${r.headers} header rule(s); ${
      r.changed ? `${r.changes.length} change(s)` : "unchanged"
    }`,
    ...r.changes.map((c) => `${indent}  ${c}`),
  ];
}

/** The steps a preview deploy has: no rules are applied and nothing is invalidated. */
export const PREVIEW_STEPS: readonly (keyof DeploySteps)[] = [
  "revision",
  "zip",
  "cacheRestore",
  "install",
  "build",
  "sync",
];

/**
 * The summary for people.
 *
 * @param env environment name
 * @param s the pipeline's summary
 * @param steps the steps the `time` line shows (default every one)
 * @returns the lines
 */
export function summaryLines(
  env: string,
  s: DeploySummary,
  steps?: readonly (keyof DeploySteps)[],
): string[] {
  const kept = keptLine(s, ",");
  return [
    `Deployed ${env} at revision ${s.revision}`,
    `  uploaded      ${files(s.uploaded)} (${formatBytes(s.bytesUploaded)})`,
    `  deleted       ${files(s.deleted)}`,
    ...(kept ? [`  kept          ${kept}`] : []),
    `  unchanged     ${files(s.unchanged)}`,
    `  duration      ${humanDuration(s.durationMs)}`,
    `  time          ${stepsText(s.steps, steps)}`,
    `  cache         ${cacheText(s.cache)}`,
    `  invalidation  ${
      s.invalidation
        ? `${s.invalidation.id}: ${s.invalidation.paths.length} path(s)`
        : "none (nothing changed)"
    }`,
    `  url           ${s.url ?? "unknown (no domain and no distribution domain)"}`,
    ...(s.rules ? rulesLines(s.rules, "  ") : []),
  ];
}
