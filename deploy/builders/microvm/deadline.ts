/**
 * The MicroVM builder's wait deadline, as pure arithmetic over an injected clock's readings.
 *
 * @module
 */
import { buildDeadlineMs } from "../../job/job.ts";

/**
 * When the tool stops waiting for a build: `maxDurationSeconds + 60` seconds after launch.
 * The VM itself is stopped by the service at `maxDurationSeconds`; the extra minute lets its
 * last log lines arrive.
 *
 * @param launchedAtMs clock reading when `RunMicrovm` succeeded
 * @param maxDurationSeconds `microvm.maxDurationSeconds`
 * @returns the deadline, ms on the same clock
 */
export function waitDeadline(launchedAtMs: number, maxDurationSeconds: number): number {
  return launchedAtMs + buildDeadlineMs(maxDurationSeconds);
}

/**
 * Whether the deadline has passed (reaching it exactly counts as passed).
 *
 * @param nowMs clock reading
 * @param deadlineMs from {@linkcode waitDeadline}
 * @returns true when the tool must stop waiting
 */
export function pastDeadline(nowMs: number, deadlineMs: number): boolean {
  return nowMs >= deadlineMs;
}

/**
 * How long to sleep before the next poll: the poll interval, cut short by the deadline.
 *
 * @param nowMs clock reading
 * @param deadlineMs from {@linkcode waitDeadline}
 * @param intervalMs the poll interval
 * @returns milliseconds, never negative
 */
export function nextPollDelay(nowMs: number, deadlineMs: number, intervalMs: number): number {
  return Math.max(0, Math.min(intervalMs, deadlineMs - nowMs));
}
