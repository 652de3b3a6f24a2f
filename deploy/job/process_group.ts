/**
 * Stopping a build step and everything it started. Each step runs in its own process group
 * (`detached`: a new session), so a deadline or Ctrl-C reaches the package manager's children
 * too: a `node build.mjs` that finished its output but keeps a timer alive would otherwise hold
 * the output pipes open and outlive the deploy.
 *
 * @module
 */

/** Seconds between TERM and KILL when a step is stopped. */
export const KILL_GRACE_MS = 5_000;

/**
 * Sends `signal` to the whole process group led by `pid` (the step's session). Deno's
 * `Deno.kill` needs an unrestricted `--allow-run`; under the deploy task's narrow one the
 * system `kill` (which the task grants) signals the group instead. A group already gone is not
 * an error.
 *
 * @param pid the step's pid (its process group id)
 * @param signal `SIGTERM` or `SIGKILL`
 */
export async function signalGroup(pid: number, signal: "SIGTERM" | "SIGKILL"): Promise<void> {
  try {
    Deno.kill(-pid, signal);
    return;
  } catch (err) {
    if (!(err instanceof Deno.errors.NotCapable)) return; // ESRCH: nothing left to stop
  }
  try {
    await new Deno.Command("kill", {
      args: ["-s", signal.slice(3), "--", `-${pid}`],
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).output();
  } catch {
    // No `kill` to run: the direct child is still stopped by the caller.
  }
}

/**
 * Stops a step's process group: TERM, then KILL if `settled` has not resolved within
 * `graceMs` (the step and every process holding its pipes gone).
 *
 * @param pid the step's pid (its process group id)
 * @param settled resolves once the step has exited and its pipes are closed
 * @param graceMs how long TERM may take
 * @returns true when TERM sufficed, false when KILL was needed
 */
export async function stopGroup(
  pid: number,
  settled: Promise<unknown>,
  graceMs: number,
): Promise<boolean> {
  await signalGroup(pid, "SIGTERM");
  let timer: ReturnType<typeof setTimeout> | undefined;
  const graceOver = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), graceMs);
  });
  const done = await Promise.race([settled.then(() => true, () => true), graceOver]);
  clearTimeout(timer);
  if (!done) await signalGroup(pid, "SIGKILL");
  return done;
}
