/**
 * The build agent's marker lines: what the agent logs so the CLI, tailing the log stream,
 * knows how a build ended, and the run hook payload's size limit. Pure. (The job itself
 * crosses as `toWire`/`fromWire`, `job/job_input.ts`.)
 *
 * @module
 */

/** The largest run hook payload the service accepts. */
export const MAX_PAYLOAD_BYTES = 16 * 1024;

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
