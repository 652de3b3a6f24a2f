// deno-lint-ignore-file no-console -- a benchmark's report is its printed lines
/**
 * How every benchmark reports: `name: value unit` lines, and the order statistics its figures
 * are taken with (each figure is a median over rounds or blocks, latencies are percentiles).
 *
 * @module
 */

/** Prints one `name: value unit` line. */
export function line(name: string, value: number, unit: string, digits = 1): void {
  console.log(`${name}: ${value.toFixed(digits)} ${unit}`);
}

/** The `p` quantile (0–1) of an ascending list; NaN for an empty one. */
export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

/** The median of `xs` (the upper one of an even count); NaN for an empty list. */
export function median(xs: readonly number[]): number {
  return percentile([...xs].sort((a, b) => a - b), 0.5);
}
