/**
 * Waiting on a condition instead of a fixed sleep: tests run on machines shared with other
 * programs, where a step that takes 50 ms idle may take seconds.
 *
 * @module
 */

/**
 * The longest any condition is waited for. Far beyond what a busy machine needs; it exists so
 * that a real hang fails the test with a message instead of stalling the suite.
 */
export const WAIT_CAP_MS = 120_000;

/**
 * Polls `condition` until it returns a value other than `undefined`/`false`, and returns it.
 *
 * @param condition checked at once, then every `everyMs`
 * @param what what is awaited, for the error
 * @param everyMs the polling interval (default 50 ms)
 * @param capMs how long at most (default {@linkcode WAIT_CAP_MS}; longer only for a first start
 *   that may install something)
 * @returns the condition's first truthy value
 * @throws {Error} after `capMs` without it, or what `condition` throws
 *
 * @example
 * ```ts
 * const lines = ["starting", "listening on http://127.0.0.1:8000"];
 * const url = await waitFor(() => lines.join("\n").match(/listening on (\S+)/)?.[1], "the listener");
 * ```
 */
export async function waitFor<T>(
  condition: () => T | undefined | false | Promise<T | undefined | false>,
  what: string,
  everyMs = 50,
  capMs = WAIT_CAP_MS,
): Promise<T> {
  const cap = Date.now() + capMs;
  for (;;) {
    const value = await condition();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > cap) throw new Error(`waited ${capMs / 1000} s for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/**
 * `promise`'s outcome, or an error once `capMs` passes without one: for a step that must end
 * (a job that was stopped) but could hang, so the hang fails the test with a message.
 *
 * @param promise what must settle
 * @param what what is awaited, for the error
 * @param capMs how long at most (default {@linkcode WAIT_CAP_MS})
 * @returns what `promise` resolves to
 * @throws {Error} after `capMs` without an outcome, or what `promise` rejects with
 *
 * @example
 * ```ts
 * await settlesWithin(Promise.resolve(1), "a resolved promise"); // 1
 * ```
 */
export async function settlesWithin<T>(
  promise: Promise<T>,
  what: string,
  capMs = WAIT_CAP_MS,
): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: still running after ${capMs / 1000} s`)),
      capMs,
    );
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}
