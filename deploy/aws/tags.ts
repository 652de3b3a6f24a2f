/**
 * Tags, the same way for every resource node (the core's and plugins'): the `[{Key, Value}]`
 * lists AWS APIs speak, and the comparison of a resource's live tags with the site's (pure),
 * which checks only the site's tags and leaves tags others added alone.
 *
 * @module
 */

/**
 * One drift line per site tag missing or different on the resource.
 *
 * @param live the resource's tags
 * @param want the site's `app` / `environment` tags
 * @returns the differences
 *
 * @example
 * ```ts
 * tagDrift({ app: "blog" }, { app: "blog", environment: "prod" });
 * // ["tag environment=(missing), want prod"]
 * ```
 */
export function tagDrift(
  live: Readonly<Record<string, string | undefined>>,
  want: Readonly<Record<string, string>>,
): string[] {
  return Object.entries(want)
    .filter(([k, v]) => live[k] !== v)
    .map(([k, v]) => `tag ${k}=${live[k] ?? "(missing)"}, want ${v}`);
}

/**
 * Tags as the `[{Key, Value}]` list several AWS APIs take.
 *
 * @param tags a tag map
 * @returns the list
 */
export function tagList(tags: Readonly<Record<string, string>>): { Key: string; Value: string }[] {
  return Object.entries(tags).map(([Key, Value]) => ({ Key, Value }));
}

/**
 * A `[{Key, Value}]` list as a map.
 *
 * @param list the list (entries without a key are skipped)
 * @returns the map
 */
export function tagMap(
  list: readonly { Key?: string | undefined; Value?: string | undefined }[] | undefined,
): Record<string, string> {
  return Object.fromEntries(
    (list ?? []).filter((t) => t.Key !== undefined).map((t) => [t.Key!, t.Value ?? ""]),
  );
}
