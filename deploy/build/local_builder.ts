/**
 * The local builder: unpacks the source zip into a temp dir and runs the package install and
 * build there, on this machine (`--builder local`).
 *
 * @module
 */
import { buildDeadlineMs, type Builder, type BuildJob, type BuildOutput } from "./builder.ts";
import { runBuildSteps } from "./run_steps.ts";
import { extractZip } from "./unzip.ts";

/** Options for {@linkcode createLocalBuilder}. */
export interface LocalBuilderOptions {
  /** Parent of the temp build dir. Default: the system temp dir. */
  readonly tempRoot?: string;
  /** Overrides the deadline (milliseconds); tests use it instead of waiting a minute. */
  readonly deadlineMs?: number;
  /** Extra environment for the install and build (merged over this process's). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Creates the local builder. `build()` unpacks the zip into a fresh temp dir, detects the
 * package manager from the lockfile, runs install then build in `paths.app` with each output
 * line passed to `onOutput` as it comes, and returns `paths.dist` (relative to the unpacked
 * repo root, not to `paths.app`). Both steps share one deadline of `maxDurationSeconds + 60`
 * seconds, anchored at the start of the build. On failure the temp dir is removed.
 *
 * @param options temp root, deadline override and extra env
 * @returns the builder
 *
 * @example
 * ```ts
 * const out = await createLocalBuilder().build({ buildId, sourceZip, paths: { app: ".", dist: "dist" }, maxDurationSeconds: 1800 });
 * ```
 */
export function createLocalBuilder(options: LocalBuilderOptions = {}): Builder {
  return {
    name: "local",
    async build(job: BuildJob): Promise<BuildOutput> {
      const root = await Deno.makeTempDir({
        prefix: `deploy-build-${job.buildId.replace(/[^\w.-]/g, "_")}-`,
        ...(options.tempRoot ? { dir: options.tempRoot } : {}),
      });
      const dispose = () => Deno.remove(root, { recursive: true }).catch(() => {});
      try {
        await extractZip(job.sourceZip, root);
        const distDir = await runBuildSteps({
          rootDir: root,
          paths: job.paths,
          deadlineMs: options.deadlineMs ?? buildDeadlineMs(job.maxDurationSeconds),
          ...(job.onOutput ? { onOutput: job.onOutput } : {}),
          ...(options.env ? { env: options.env } : {}),
        });
        return { kind: "directory", distDir, dispose };
      } catch (err) {
        await dispose();
        throw err;
      }
    },
  };
}
