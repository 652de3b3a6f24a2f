/**
 * Reading every page of an SDK `paginate*` listing into one array: the listings the CLI makes
 * (certificates, deliveries, images, objects) are small enough to hold, and one array keeps the
 * caller's own filter plain.
 *
 * @module
 */

/**
 * Every item of every page.
 *
 * @param pages an SDK paginator (`paginateListObjectsV2({ client }, input)`)
 * @param items the page's items (`(page) => page.Contents`)
 * @returns the items, in listing order
 * @throws whatever a page request throws
 *
 * @example
 * ```ts
 * import { allItems } from "./pages.ts";
 *
 * async function* pages() {
 *   yield { Items: [1, 2] };
 *   yield { Items: undefined };
 *   yield { Items: [3] };
 * }
 * const all = await allItems(pages(), (page) => page.Items);
 * if (all.join() !== "1,2,3") throw new Error("every page, in order");
 * ```
 */
export async function allItems<P, T>(
  pages: AsyncIterable<P>,
  items: (page: P) => readonly T[] | undefined,
): Promise<T[]> {
  const out: T[] = [];
  for await (const page of pages) out.push(...(items(page) ?? []));
  return out;
}
