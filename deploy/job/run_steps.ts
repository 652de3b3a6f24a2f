/**
 * Runs a site's install and build: detects the package manager in `paths.app` and runs its
 * steps under one deadline. Shared by the local builder and the MicroVM build agent, so both
 * build a site the same way.
 *
 * @module
 */
import { DeployError } from "../errors.ts";
import type { BuildPaths } from "../builders/builder.ts";
import { detectPackageManager, type Step } from "./package_manager.ts";

/** Options for {@linkcode runBuildSteps}. */
export interface RunBuildStepsOptions {
  /** The unpacked repository root (absolute). */
  readonly rootDir: string;
  /** `paths.app` and `paths.dist`, repo-relative. */
  readonly paths: BuildPaths;
  /** Milliseconds for install and build together, from now. */
  readonly deadlineMs: number;
  /** Receives each line the steps print, as they print it. */
  readonly onOutput?: (line: string, stream: "stdout" | "stderr") => void;
  /** Extra environment for the steps (merged over this process's, after `CI=true`). */
  readonly env?: Readonly<Record<string, string>>;
}

/**
 * Detects the package manager for `paths.app` and runs install then build there, with each
 * output line passed to `onOutput`. Both steps share one deadline; a step still running at the
 * deadline is killed.
 *
 * @param options root, paths, deadline, output and env
 * @returns the absolute path of `paths.dist` (relative to the root, not to `paths.app`)
 * @throws DeployError `package_manager_unknown`, `package_manager_missing`, `build_failed`,
 *   `build_timeout` or `dist_missing`
 *
 * @example
 * ```ts
 * const dist = await runBuildSteps({ rootDir, paths: { app: ".", dist: "dist" }, deadlineMs: 1_860_000 });
 * ```
 */
export async function runBuildSteps(options: RunBuildStepsOptions): Promise<string> {
  const { rootDir, paths, deadlineMs } = options;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deadlineMs);
  try {
    const appDir = paths.app === "." ? rootDir : `${rootDir}/${stripPath(paths.app)}`;
    const { steps } = await detectPackageManager(appDir, rootDir);
    for (const step of steps) await runStep(step, appDir, controller.signal, options);
  } finally {
    clearTimeout(timer);
  }
  const distDir = `${rootDir}/${stripPath(paths.dist)}`;
  const info = await Deno.stat(distDir).catch(() => undefined);
  if (!info?.isDirectory) {
    throw new DeployError(
      "dist_missing",
      `the build finished but produced no ${paths.dist} directory`,
      { hint: "check paths.dist: it is relative to the repository root, not to paths.app" },
    );
  }
  return distDir;
}

/**
 * A repo-relative path without a leading `./` or trailing slashes.
 *
 * @param path e.g. `./site/`
 * @returns e.g. `site`
 */
export function stripPath(path: string): string {
  // `\` read as `/`: a config written on Windows (`site\dist`) names the same directory.
  return path.replaceAll("\\", "/").replace(/^\.\/+/, "").replace(/\/+$/, "");
}

async function runStep(
  step: Step,
  cwd: string,
  signal: AbortSignal,
  options: RunBuildStepsOptions,
): Promise<void> {
  const label = `${step.cmd} ${step.args.join(" ")}`;
  if (signal.aborted) throw timeout(label, options.deadlineMs);
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(step.cmd, {
      args: [...step.args],
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      signal,
      env: { CI: "true", ...options.env },
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
      for (const line of lines) options.onOutput?.(line, name);
    }
    if (buffered !== "") options.onOutput?.(buffered, name);
  };
  const [status] = await Promise.all([
    child.status,
    pump(child.stdout, "stdout"),
    pump(child.stderr, "stderr"),
  ]);
  if (signal.aborted) throw timeout(label, options.deadlineMs);
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
