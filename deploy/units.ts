/**
 * Durations and byte counts for people, in every command's output. At the root of `deploy/` so
 * that any folder may use them without an import cycle.
 *
 * @module
 */

/**
 * Formats milliseconds for people: `850 ms`, `42 s`, `3m 05s`, `1h 02m`.
 *
 * @param ms a duration
 * @returns the text
 */
export function humanDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}

/**
 * Bytes for people, in powers of 1024: `512 B`, `1.5 KB`, `12.0 MB`.
 *
 * @param bytes a byte count
 * @returns the text
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(1)} ${units[unit]}`;
}
