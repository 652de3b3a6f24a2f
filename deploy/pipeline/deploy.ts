/**
 * The deploy pipeline as functions of explicit inputs: revision → source zip → build → SEO
 * files → sync → invalidation. The `plan` and `deploy` commands are thin layers that resolve
 * config and state into a {@linkcode DeployInput} and print the result.
 *
 * @module
 */
import type { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import type { S3Client } from "@aws-sdk/client-s3";
import { type Clock, type Logger, systemClock } from "@org/shared";
import type { Builder, BuildPaths } from "../build/builder.ts";
import { stripPath } from "../build/run_steps.ts";
import { createInvalidation } from "../cdn/invalidate.ts";
import { planInvalidation } from "../cdn/invalidation.ts";
import { DeployError } from "../errors.ts";
import { generateSeoFiles, listKeys } from "../seo/files.ts";
import type { SeoSettings } from "../seo/policy.ts";
import { type CommandRunner, readRevision, type Revision } from "../source/revision.ts";
import { createSourceZip } from "../source/zip.ts";
import { type SyncProgress, syncSite } from "../sync/engine.ts";
import type { UploadReason } from "../sync/plan.ts";
import type { RetryOptions } from "../aws/retry.ts";

/** A pipeline step, reported as it starts. */
export type DeployStage = "revision" | "zip" | "build" | "seo" | "sync" | "invalidate";

/** Progress events: a stage starting, or upload/delete progress inside the sync. */
export type DeployProgress =
  | { readonly kind: "stage"; readonly stage: DeployStage }
  | ({ readonly kind: "sync" } & SyncProgress);

/** Everything one plan or deploy needs, already resolved from config, state and flags. */
export interface DeployInput {
  /** Absolute repository root. */
  readonly repoRoot: string;
  /** Environment name (for logs and the `environment` tag the caller puts in `tags`). */
  readonly env: string;
  /** Production and not a preview: drives `seo` `auto`. */
  readonly isProduction: boolean;
  /** Config `sourceIgnore` and `sourceInclude`. */
  readonly source: {
    readonly sourceIgnore: readonly string[];
    readonly sourceInclude: readonly string[];
  };
  /** Config `paths.app` and `paths.dist`. */
  readonly paths: BuildPaths;
  /** Config `microvm.maxDurationSeconds` (the build deadline is this + 60 s). */
  readonly maxDurationSeconds: number;
  /** Site bucket (from bootstrap state). */
  readonly bucket: string;
  /** Key prefix of the live site, normally `site/`. */
  readonly prefix: string;
  /** CloudFront distribution id (from bootstrap state). */
  readonly distributionId: string;
  /** Object tags, `{ app, environment }`. */
  readonly tags: Readonly<Record<string, string>>;
  /** Config `seo`. */
  readonly seo: SeoSettings;
  /** `https://<domain or CDN domain>`; undefined when neither is known. */
  readonly origin: string | undefined;
  /** Config `invalidationMaxPaths`. */
  readonly invalidationMaxPaths: number;
  /** Config `defaultRootObject`. Default `index.html`. */
  readonly defaultRootObject?: string;
  /** The builder (`--builder local|microvm`). */
  readonly builder: Builder;
  /** `--no-build`: sync the existing `paths.dist` instead of building. */
  readonly noBuild?: boolean;
  /** `--refresh`: re-upload every file (and invalidate it). */
  readonly refresh?: boolean;
  /** `--force`: allow a sync that deletes most of the live site. */
  readonly force?: boolean;
  /** AWS clients. */
  readonly clients: { readonly s3: S3Client; readonly cloudfront: CloudFrontClient };
  /** Runs `git`/`jj` for the revision. */
  readonly runCommand: CommandRunner;
  /** Structured logs and warnings. */
  readonly logger: Logger;
  /** Stage and upload progress (a progress bar on a TTY). */
  readonly onProgress?: (event: DeployProgress) => void;
  /** Each line the build prints. */
  readonly onBuildOutput?: (line: string, stream: "stdout" | "stderr") => void;
  /** Backoff for S3/CloudFront calls. */
  readonly retry?: RetryOptions;
  /** Parallel uploads. Default 16. */
  readonly concurrency?: number;
  /** Parent of temp dirs (zip, build). Default: the system temp dir. */
  readonly tempRoot?: string;
  /** Duration source. Default: the system clock. */
  readonly clock?: Clock;
}

/** What a deploy would do (`deploy plan`, and `--json`). */
export interface DeployPlan {
  /** The revision built. */
  readonly revision: string;
  /** Files to upload, in order, with why. */
  readonly uploads: readonly { key: string; size: number; reason: UploadReason }[];
  /** Keys to delete. */
  readonly deletes: readonly string[];
  /** Files already live. */
  readonly unchanged: number;
  /** Bytes to upload. */
  readonly bytes: number;
  /** Paths to invalidate (`[]` for none, `["/*"]` past the cap). */
  readonly invalidation: readonly string[];
  /** Warnings (e.g. sitemap skipped). */
  readonly warnings: readonly string[];
}

/** What a deploy did (the summary). */
export interface DeploySummary {
  /** The revision deployed, e.g. `3f2a1b9c8d7e-dirty`. */
  readonly revision: string;
  /** Files uploaded. */
  readonly uploaded: number;
  /** Files deleted. */
  readonly deleted: number;
  /** Files unchanged. */
  readonly unchanged: number;
  /** Bytes uploaded. */
  readonly bytesUploaded: number;
  /** Wall time in milliseconds. */
  readonly durationMs: number;
  /** The invalidation sent, or undefined when nothing changed. */
  readonly invalidation: { readonly id: string; readonly paths: readonly string[] } | undefined;
  /** The site URL, when known. */
  readonly url: string | undefined;
  /** Keys that changed or were deleted. */
  readonly changedKeys: readonly string[];
  /** Warnings shown to the user. */
  readonly warnings: readonly string[];
}

type Prepared =
  & { revision: Revision; dispose: () => Promise<void>; warnings: string[] }
  & (
    | { kind: "directory"; distDir: string }
    | {
      kind: "synced";
      changedKeys: readonly string[];
      uploaded: number;
      deleted: number;
      unchanged: number;
      bytesUploaded: number;
      changeDigest?: string;
    }
  );

/**
 * Reads the revision, zips the source and runs the builder (or, with `noBuild`, takes the
 * existing `paths.dist`).
 */
async function prepare(input: DeployInput): Promise<Prepared> {
  const stage = (s: DeployStage) => input.onProgress?.({ kind: "stage", stage: s });
  stage("revision");
  const revision = await readRevision(input.repoRoot, input.runCommand);
  const warnings: string[] = [];
  input.logger.info("revision", { revision: revision.id, vcs: revision.vcs });
  if (input.noBuild) {
    const distDir = `${input.repoRoot}/${stripPath(input.paths.dist)}`;
    if (!(await Deno.stat(distDir).catch(() => undefined))?.isDirectory) {
      throw new DeployError(
        "dist_missing",
        `--no-build needs an existing ${input.paths.dist} directory`,
        { hint: "build the site first, or drop --no-build" },
      );
    }
    return { kind: "directory", distDir, revision, warnings, dispose: () => Promise.resolve() };
  }
  stage("zip");
  const tmp = await Deno.makeTempDir({
    prefix: "deploy-src-",
    ...(input.tempRoot ? { dir: input.tempRoot } : {}),
  });
  const removeTmp = () => Deno.remove(tmp, { recursive: true }).catch(() => {});
  try {
    // Fails on a bad sourceInclude before anything is built or uploaded.
    const zip = await createSourceZip({
      repoRoot: input.repoRoot,
      sourceIgnore: input.source.sourceIgnore,
      sourceInclude: input.source.sourceInclude,
      outPath: `${tmp}/source.zip`,
      onWarning: (w) => {
        warnings.push(w);
        input.logger.warn(w);
      },
    });
    input.logger.info("source zipped", { files: zip.files.length, bytes: zip.bytes });
    stage("build");
    const out = await input.builder.build({
      buildId: revision.id,
      sourceZip: zip.path,
      paths: input.paths,
      maxDurationSeconds: input.maxDurationSeconds,
      refresh: input.refresh ?? false,
      force: input.force ?? false,
      ...(input.onBuildOutput ? { onOutput: input.onBuildOutput } : {}),
    });
    if (out.kind === "directory") {
      return {
        kind: "directory",
        distDir: out.distDir,
        revision,
        warnings,
        dispose: async () => {
          await out.dispose();
          await removeTmp();
        },
      };
    }
    await removeTmp();
    return { ...out, revision, warnings, dispose: () => Promise.resolve() };
  } catch (err) {
    await removeTmp();
    throw err;
  }
}

/**
 * Plans a deploy without changing anything remote (nor the output directory: the SEO files
 * are laid over it in memory): what would be uploaded, deleted and invalidated.
 *
 * @param input resolved config, state, flags and dependencies
 * @returns the plan
 * @throws DeployError from the zip or build; `plan_unsupported` for a builder that syncs
 *   remotely (plan with `--builder local` or `--no-build`)
 *
 * @example
 * ```ts
 * const plan = await planDeploy(input);
 * console.log(JSON.stringify(plan));
 * ```
 */
export async function planDeploy(input: DeployInput): Promise<DeployPlan> {
  const prepared = await prepare(input);
  try {
    if (prepared.kind !== "directory") {
      throw new DeployError(
        "plan_unsupported",
        `the ${input.builder.name} builder syncs as it builds, so it cannot plan`,
        { hint: "run plan with --builder local or --no-build" },
      );
    }
    const { seo, result } = await seoAndSync(input, prepared.distDir, { dryRun: true });
    const uploads = result.plan.uploads.map((u) => ({
      key: u.file.key,
      size: u.file.size,
      reason: u.reason,
    }));
    return {
      revision: prepared.revision.id,
      uploads,
      deletes: result.plan.deletes,
      unchanged: result.unchanged,
      bytes: uploads.reduce((n, u) => n + u.size, 0),
      invalidation: planInvalidation(
        result.changedKeys,
        input.invalidationMaxPaths,
        input.defaultRootObject,
      ),
      warnings: result.refusal
        ? [
          ...prepared.warnings,
          ...seo.warnings,
          `deploy would refuse: ${result.refusal.message} (${result.refusal.hint})`,
        ]
        : [...prepared.warnings, ...seo.warnings],
    };
  } finally {
    await prepared.dispose();
  }
}

/**
 * Runs a deploy: revision → zip → build → SEO files (laid over the output in memory) → sync
 * (assets, HTML, deletions) → one invalidation of the changed paths (none when nothing
 * changed).
 *
 * @param input resolved config, state, flags and dependencies
 * @returns the summary to print
 * @throws DeployError from the zip, build or sync; an AWS error that outlived its retries
 *
 * @example
 * ```ts
 * const summary = await runDeploy({ ...input, builder: createLocalBuilder() });
 * ```
 */
export async function runDeploy(input: DeployInput): Promise<DeploySummary> {
  const clock = input.clock ?? systemClock;
  const started = clock.now();
  const prepared = await prepare(input);
  try {
    let counts: Omit<DeploySummary, "revision" | "durationMs" | "invalidation" | "url">;
    let digest: string;
    if (prepared.kind === "directory") {
      const { seo, result } = await seoAndSync(input, prepared.distDir, {
        ...(input.concurrency ? { concurrency: input.concurrency } : {}),
        onProgress: (p) => input.onProgress?.({ kind: "sync", ...p }),
      });
      for (const warning of seo.warnings) input.logger.warn(warning);
      counts = {
        uploaded: result.uploaded.length,
        deleted: result.deleted.length,
        unchanged: result.unchanged,
        bytesUploaded: result.bytesUploaded,
        changedKeys: result.changedKeys,
        warnings: [...prepared.warnings, ...seo.warnings],
      };
      digest = result.changeDigest;
    } else {
      counts = {
        uploaded: prepared.uploaded,
        deleted: prepared.deleted,
        unchanged: prepared.unchanged,
        bytesUploaded: prepared.bytesUploaded,
        changedKeys: prepared.changedKeys,
        warnings: prepared.warnings,
      };
      digest = prepared.changeDigest ?? "";
    }
    input.onProgress?.({ kind: "stage", stage: "invalidate" });
    const paths = planInvalidation(
      counts.changedKeys,
      input.invalidationMaxPaths,
      input.defaultRootObject,
    );
    const sent = await createInvalidation(
      input.clients.cloudfront,
      input.distributionId,
      paths,
      prepared.revision.id,
      input.retry,
      digest,
    );
    const summary: DeploySummary = {
      revision: prepared.revision.id,
      ...counts,
      durationMs: clock.now() - started,
      invalidation: sent ? { id: sent.id, paths: sent.paths } : undefined,
      url: input.origin,
    };
    input.logger.info("deployed", {
      revision: summary.revision,
      uploaded: summary.uploaded,
      deleted: summary.deleted,
      unchanged: summary.unchanged,
      invalidated: paths.length,
    });
    return summary;
  } finally {
    await prepared.dispose();
  }
}

/**
 * The step `plan` and `deploy` share: generate the SEO files and sync the output with them
 * laid over it in memory (with `--no-build` the output is the working tree's own `paths.dist`,
 * which must not be modified).
 */
async function seoAndSync(
  input: DeployInput,
  distDir: string,
  extra: Pick<Parameters<typeof syncSite>[0], "dryRun" | "concurrency" | "onProgress">,
) {
  input.onProgress?.({ kind: "stage", stage: "seo" });
  const seo = generateSeoFiles(await listKeys(distDir), input.seo, {
    isProduction: input.isProduction,
    origin: input.origin,
  });
  input.onProgress?.({ kind: "stage", stage: "sync" });
  const result = await syncSite({
    s3: input.clients.s3,
    bucket: input.bucket,
    prefix: input.prefix,
    distDir,
    overlay: seo.files,
    tags: input.tags,
    refresh: input.refresh ?? false,
    force: input.force ?? false,
    ...(input.retry ? { retry: input.retry } : {}),
    logger: input.logger,
    ...extra,
  });
  return { seo, result };
}
