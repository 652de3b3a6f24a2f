/**
 * Runs a site's install and build: detects the package manager in `paths.app` and runs its
 * steps under one deadline. Shared by the local builder and the MicroVM build agent, so both
 * build a site the same way.
 *
 * @module
 */
import { DeployError, interruptedError } from "../errors.ts";
import type { BuildPaths } from "./job_input.ts";
import { detectPackageManager, reuseInstallStep, type Step } from "./package_manager.ts";
import type { BuildCache, BuildCacheContext, DependencyRestore } from "./build_cache.ts";
import { KILL_GRACE_MS, signalGroup, stopGroup } from "./process_group.ts";

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
  /** Aborted on Ctrl-C/SIGTERM: the running step's group is stopped and `interrupted` thrown. */
  readonly signal?: AbortSignal;
  /** Milliseconds between TERM and KILL when a step is stopped. Default {@linkcode KILL_GRACE_MS}. */
  readonly killGraceMs?: number;
  /** Restores and keeps dependencies and framework caches around the steps; none: no cache. */
  readonly cache?: BuildCache;
}

/** What {@linkcode runBuildSteps} built, and where its time went. */
export interface BuiltSteps {
  /** The absolute path of `paths.dist`. */
  readonly distDir: string;
  /** Whether the dependencies came from the cache (false without one). */
  readonly cacheHit: boolean;
  /** Whether framework caches were restored. */
  readonly frameworkCacheHit: boolean;
  /** The dependency cache's key; none when the install is not cached. */
  readonly cacheKey?: string;
  /** Milliseconds per step: restoring caches, installing, building, keeping caches. */
  readonly timings: {
    readonly cacheRestoreMs: number;
    readonly installMs: number;
    readonly buildMs: number;
    readonly cacheSaveMs: number;
  };
}

/**
 * Detects the package manager for `paths.app` and runs install then build there, with each
 * output line passed to `onOutput`. Both steps share one deadline. Each step runs in its own
 * process group: at the deadline (or when `signal` aborts) the whole group gets TERM, then
 * KILL after the grace period, and the output pipes are no longer read, so a grandchild that
 * keeps them open neither hangs the deploy nor outlives it. A group member left running after
 * a step exits (a server the build started) is stopped the same way.
 *
 * With a `cache`, the dependencies are restored before the install (which then only checks
 * them), the framework caches before the build, and both are kept after a successful build. A
 * restored tree whose install fails is discarded with one line and installed cleanly.
 *
 * @param options root, paths, deadline, output, env and cache
 * @returns `paths.dist` (absolute; relative to the root, not to `paths.app`), the cache's
 *   outcome and each step's time
 * @throws DeployError `package_manager_unknown`, `package_manager_missing`, `build_failed`,
 *   `build_timeout`, `interrupted` or `dist_missing`
 *
 * @example
 * ```ts
 * const build = (rootDir: string) =>
 *   runBuildSteps({ rootDir, paths: { app: ".", dist: "dist" }, deadlineMs: 1_860_000 });
 * ```
 */
export async function runBuildSteps(options: RunBuildStepsOptions): Promise<BuiltSteps> {
  const { rootDir, paths, deadlineMs, cache } = options;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), deadlineMs);
  const app = stripPath(paths.app) || ".";
  const appDir = app === "." ? rootDir : `${rootDir}/${app}`;
  const timings = { cacheRestoreMs: 0, installMs: 0, buildMs: 0, cacheSaveMs: 0 };
  const timed = async <T>(step: keyof typeof timings, run: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await run();
    } finally {
      timings[step] += Math.round(performance.now() - start);
    }
  };
  let restored: DependencyRestore = { hit: false };
  let frameworkCacheHit = false;
  let context: BuildCacheContext | undefined;
  try {
    const { steps, detection, dir } = await detectPackageManager(appDir, rootDir);
    const [install, ...rest] = steps;
    context = { rootDir, appDir, app, detection, lockDir: dir };
    const ctx = context;
    if (cache) restored = await timed("cacheRestoreMs", () => cache.restoreDependencies(ctx));
    if (install) {
      await timed("installMs", async () => {
        if (!restored.hit) return await runStep(install, appDir, controller.signal, options);
        try {
          await runStep(reuseInstallStep(install), appDir, controller.signal, options);
        } catch (err) {
          if (!(err instanceof DeployError) || err.code !== "build_failed") throw err;
          await cache!.discardDependencies(ctx, `${err.message} with the restored tree`);
          restored = restored.key === undefined
            ? { hit: false }
            : { key: restored.key, hit: false };
          await runStep(install, appDir, controller.signal, options);
        }
      });
    }
    if (cache) frameworkCacheHit = await timed("cacheRestoreMs", () => cache.restoreFramework(ctx));
    await timed("buildMs", async () => {
      for (const step of rest) await runStep(step, appDir, controller.signal, options);
    });
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
  if (cache && context) {
    const ctx = context;
    const kept = restored;
    await timed("cacheSaveMs", () => cache.save(ctx, kept));
  }
  return {
    distDir,
    cacheHit: restored.hit,
    frameworkCacheHit,
    ...(restored.key === undefined ? {} : { cacheKey: restored.key }),
    timings,
  };
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
  deadline: AbortSignal,
  options: RunBuildStepsOptions,
): Promise<void> {
  const label = `${step.cmd} ${step.args.join(" ")}`;
  const stopped = () =>
    options.signal?.aborted ? interruptedError(label) : timeout(label, options.deadlineMs);
  if (deadline.aborted || options.signal?.aborted) throw stopped();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(step.cmd, {
      args: [...step.args],
      cwd,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
      // A session of its own: the deadline and Ctrl-C signal the whole group (process_group.ts).
      detached: true,
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
  const readers = [child.stdout, child.stderr].map((s) =>
    s.pipeThrough(new TextDecoderStream()).getReader()
  );
  const pump = async (reader: ReadableStreamDefaultReader<string>, name: "stdout" | "stderr") => {
    let buffered = "";
    try {
      while (true) {
        const { value, done } = await reader.read();
        if (done) break;
        buffered += value;
        const lines = buffered.split(/\r?\n/);
        buffered = lines.pop()!;
        for (const line of lines) options.onOutput?.(line, name);
      }
    } catch {
      // Cancelled after the step was stopped: the rest of its output is not wanted.
    }
    if (buffered !== "") options.onOutput?.(buffered, name);
  };
  const pipesClosed = Promise.all([pump(readers[0]!, "stdout"), pump(readers[1]!, "stderr")]);
  const status = child.status;
  // Once the step itself exits, whatever it left in its group (a server, a watcher holding
  // the pipes) is stopped: a build step must not outlive its deploy.
  const exited = status.then(async (s) => {
    await signalGroup(child.pid, "SIGTERM");
    return s;
  });
  const settled = Promise.all([exited, pipesClosed]);
  const stop = new Promise<"stop">((resolve) => {
    const onStop = () => resolve("stop");
    deadline.addEventListener("abort", onStop, { once: true });
    options.signal?.addEventListener("abort", onStop, { once: true });
    settled.finally(() => {
      deadline.removeEventListener("abort", onStop);
      options.signal?.removeEventListener("abort", onStop);
    });
  });
  const first = await Promise.race([settled.then(() => "done" as const), stop]);
  if (first === "stop") {
    const clean = await stopGroup(child.pid, settled, options.killGraceMs ?? KILL_GRACE_MS);
    if (!clean) {
      // KILLed: stop reading whatever still holds the pipes, and reap the step itself (killed
      // directly too, where a group cannot be signalled).
      for (const reader of readers) await reader.cancel().catch(() => {});
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
      await status;
    }
    throw stopped();
  }
  const [result] = await settled;
  if (deadline.aborted || options.signal?.aborted) throw stopped();
  if (!result.success) {
    throw new DeployError(
      "build_failed",
      `${label} failed with exit code ${result.code}`,
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
