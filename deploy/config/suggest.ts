/**
 * The closest known name to a misspelt one, for "did you mean" hints.
 *
 * @param input the unknown name
 * @param known the names that are allowed
 * @returns the best candidate within a small edit distance, or undefined
 *
 * @example
 * ```ts
 * suggest("sitename", ["siteName", "region"]); // "siteName"
 * ```
 */
export function suggest(input: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of known) {
    const d = distance(input.toLowerCase(), name.toLowerCase());
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  // A third of the name, at least 1 and at most 3 edits: catches typos, not unrelated words.
  const limit = Math.min(3, Math.max(1, Math.floor(input.length / 3)));
  return bestDistance <= limit ? best : undefined;
}

/** Levenshtein distance with adjacent transpositions (optimal string alignment). */
function distance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) {
    const row: number[] = [i];
    for (let j = 1; j <= b.length; j++) row.push(i === 0 ? j : 0);
    rows.push(row);
  }
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Infinity;
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i]!;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        d = Math.min(d, at(i - 2, j - 2) + 1);
      }
      row[j] = d;
    }
  }
  return at(a.length, b.length);
}
