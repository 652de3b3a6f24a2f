const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };
const PART = /(\d+)(d|h|m|s)/g;
const WHOLE = /^(?:\d+(?:d|h|m|s))+$/;

/**
 * Parses a duration string such as `"900s"`, `"15m"`, `"30d"` or `"1h30m"` into seconds.
 *
 * Units are `s`, `m`, `h` and `d`; a bare number is refused because its unit would be a guess.
 *
 * @param text the duration as written in a config file
 * @returns the duration in whole seconds
 * @throws {RangeError} quoting the offending text when it is not a duration
 *
 * @example
 * ```ts
 * parseDuration("15m"); // 900
 * ```
 */
export function parseDuration(text: string): number {
  const trimmed = text.trim();
  if (!WHOLE.test(trimmed)) {
    throw new RangeError(
      `"${text}" is not a duration; write a number with a unit, like "900s", "15m", "12h" or "30d"`,
    );
  }
  let seconds = 0;
  for (const [, amount, unit] of trimmed.matchAll(PART)) {
    seconds += Number(amount) * (UNIT_SECONDS[unit ?? "s"] ?? 1);
  }
  return seconds;
}

/**
 * Formats seconds as the shortest exact duration string (`900` → `"15m"`).
 *
 * @param seconds a non-negative whole number of seconds
 * @returns a string that {@linkcode parseDuration} reads back to the same value
 */
export function formatDuration(seconds: number): string {
  for (const unit of ["d", "h", "m"] as const) {
    const size = UNIT_SECONDS[unit] ?? 1;
    if (seconds > 0 && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}
