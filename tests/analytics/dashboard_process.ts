/**
 * `deploy analytics dashboard` as a user runs it: a subprocess (under the flags the caller
 * gives, e.g. the deploy task's), its URL read from what it prints, stopped with SIGTERM like
 * Ctrl-C. Used by the main suite (no query engine) and the analytics peer (the real one).
 *
 * @module
 */
import { deployProcess, type DeployProcessOptions } from "../deploy/deploy_process.ts";

/** A running dashboard process. */
export interface DashboardProcess extends AsyncDisposable {
  /** The URL it printed, `http://127.0.0.1:<port>/`. */
  readonly url: string;
  /** What it printed so far (stdout). */
  stdout(): string;
  /** Sends SIGTERM and waits: the exit code and all it printed. */
  stop(): Promise<{ code: number; stdout: string; stderr: string }>;
}

/**
 * Starts `deploy analytics dashboard …` and waits until it prints its URL.
 *
 * @param options the process (its `args` follow `analytics dashboard`)
 * @returns the process; `await using` stops it
 * @throws {Error} when it exits before printing a URL (with what it printed)
 */
export async function startDashboardProcess(
  options: DeployProcessOptions,
): Promise<DashboardProcess> {
  const child = deployProcess({ ...options, args: ["analytics", "dashboard", ...options.args] })
    .spawn();
  let out = "";
  let err = "";
  const stderrDone = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (chunk) => void (err += chunk) }),
  );
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let url: string | undefined;
  while (url === undefined) {
    const { value, done } = await reader.read();
    if (done) {
      await stderrDone;
      await child.status;
      throw new Error(`the dashboard exited before printing its URL:\n${out}\n${err}`);
    }
    out += value;
    url = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(out)?.[1];
  }
  const rest = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      out += value;
    }
  })();
  let stopped: Promise<{ code: number; stdout: string; stderr: string }> | undefined;
  const stop = () =>
    stopped ??= (async () => {
      try {
        child.kill("SIGTERM");
      } catch {
        // already exited
      }
      const status = await child.status;
      await Promise.all([rest, stderrDone]);
      return { code: status.code, stdout: out, stderr: err };
    })();
  return {
    url,
    stdout: () => out,
    stop,
    [Symbol.asyncDispose]: async () => void await stop(),
  };
}
