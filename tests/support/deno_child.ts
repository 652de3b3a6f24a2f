/**
 * The flag every `deno` that a test starts with this workspace's config carries: use the
 * workspace's `node_modules` as it is, never set it up again.
 *
 * With `"npm-lazy-caching"` (deno.json), a `deno` process sets `node_modules` up for its own
 * module graph only, and one whose packages differ from the last process's removes and re-creates
 * their symlinks (Deno 2.9.6). A child doing that while a parallel test module loads the same
 * CommonJS package makes its `require` fail (`Cannot find module '@aws-sdk/core/client'` failed
 * CI once). `deno task test` installs every package of the workspace before the suite starts, so
 * a child finds all it needs; run single test files through it (`deno task test <file>`).
 *
 * @example Start the CLI as a test does
 * ```ts
 * import { KEEP_NODE_MODULES } from "./deno_child.ts";
 *
 * const cmd = new Deno.Command(Deno.execPath(), {
 *   args: ["run", KEEP_NODE_MODULES, "deploy/main.ts", "--help"],
 * });
 * ```
 */
export const KEEP_NODE_MODULES = "--node-modules-dir=manual";
