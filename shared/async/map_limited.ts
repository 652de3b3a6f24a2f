/**
 * Runs `fn` over `items` with at most `limit` calls in flight, and returns their results in the
 * items' order. After a failure no new call starts; the first failure is thrown once the calls
 * already started have settled (none is left running behind the caller's back).
 *
 * @param items the work
 * @param limit the parallelism bound (at least 1)
 * @param fn the call per item
 * @returns each call's result, in the items' order
 *
 * @example
 * ```ts
 * const sizes = await mapLimited(["a", "bb", "ccc"], 2, (s) => Promise.resolve(s.length));
 * if (sizes.join() !== "1,2,3") throw new Error("out of order");
 * ```
 */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failure: { err: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!, i);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== undefined) throw failure.err;
  return out;
}
