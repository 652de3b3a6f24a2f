/**
 * `--no-cache`: the flag every command that builds takes (`deploy`, `plan`, `preview deploy`,
 * `rollback` when it rebuilds), defined once so its help reads the same everywhere.
 *
 * @module
 */

/** The flag's spec (a `FlagSpec` of `cli/command.ts`). */
export const NO_CACHE_FLAG = {
  type: "boolean",
  description: "install and build without the build cache (neither read nor kept)",
} as const;
