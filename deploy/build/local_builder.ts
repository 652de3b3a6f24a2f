/**
 * The local builder: unpacks the source zip into a temp dir and runs the package install and
 * build there, on this machine (`--builder local`).
 *
 * @module
 */
import { DeployError } from "../errors.ts";
import { buildDeadlineMs, type Builder, type BuildJob, type BuildOutput } from "./builder.ts";
import { detectPackageManager, type Step } from "./package_manager.ts";
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
        const deadline = options.deadlineMs ?? buildDeadlineMs(job.maxDurationSeconds);
        const controller = new AbortController();
        const timer = setTimeout(() => controller.abort(), deadline);
        try {
          await extractZip(job.sourceZip, root);
          const appDir = job.paths.app === "." ? root : `${root}/${strip(job.paths.app)}`;
          const { steps } = await detectPackageManager(appDir, root);
          for (const step of steps) {
            await runStep(step, appDir, controller.signal, job, options.env, deadline);
          }
        } finally {
          clearTimeout(timer);
        }
        const distDir = `${root}/${strip(job.paths.dist)}`;
        const info = await Deno.stat(distDir).catch(() => undefined);
        if (!info?.isDirectory) {
          throw new DeployError(
            "dist_missing",
            `the build finished but produced no ${job.paths.dist} directory`,
            { hint: "check paths.dist: it is relative to the repository root, not to paths.app" },
          );
        }
        return { kind: "directory", distDir, dispose };
      } catch (err) {
        await dispose();
        throw err;
      }
    },
  };
}

function strip(path: string): string {
  return path.replace(/^\.\/+/, "").replace(/\/+$/, "");
}

async function runStep(
  step: Step,
  cwd: string,
  signal: AbortSignal,
  job: BuildJob,
  env: Readonly<Record<string, string>> | undefined,
  deadlineMs: number,
): Promise<void> {
  const label = `${step.cmd} ${step.args.join(" ")}`;
  if (signal.aborted) throw timeout(label, deadlineMs);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(step.cmd, {
      args: [...step.args],
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal,
      env: { CI: "true", ...env },
    }).spawn();
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) {
      throw new DeployError(
        "package_manager_missing",
        `${step.cmd} is not installed on this machine`,
        { hint: `install ${step.cmd}, or build with --builder microvm` },
      );
    }
    throw err;
  }
  const pump = async (stream: ReadableStream<Uint8Array>, name: "stdout" | "stderr") => {
    let buffered = "";
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      buffered += text;
      const lines = buffered.split(/\r?\n/);
      buffered = lines.pop()!;
      for (const line of lines) job.onOutput?.(line, name);
    }
    if (buffered !== "") job.onOutput?.(buffered, name);
  };
  const [status] = await Promise.all([
    child.status,
    pump(child.stdout, "stdout"),
    pump(child.stderr, "stderr"),
  ]);
  if (signal.aborted) throw timeout(label, deadlineMs);
  if (!status.success) {
    throw new DeployError(
      "build_failed",
      `${label} failed with exit code ${status.code}`,
      { hint: "the build output above shows why" },
    );
  }
}

function timeout(label: string, deadlineMs: number): DeployError {
  return new DeployError(
    "build_timeout",
    `the build did not finish within ${Math.round(deadlineMs / 1000)} s (stopped during ${label})`,
    { hint: "raise microvm.maxDurationSeconds or speed up the build" },
  );
}
