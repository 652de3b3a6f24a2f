/**
 * The dependency cache's key: what determines a site's installed dependencies. Two builds with
 * the same package manager, lockfile, `package.json`, runtime, platform and `paths.app` install
 * the same tree, so the second can restore the first's instead of installing again.
 *
 * @module
 */
import { createHash } from "node:crypto";
import type { Detection, PackageManager } from "../job/package_manager.ts";

/** The package managers whose installs are cached (Deno keeps its own global cache). */
export const CACHED_MANAGERS: readonly PackageManager[] = ["npm", "pnpm", "yarn", "bun"];

/** Bumped when what an entry holds changes, so entries of an older layout are never restored. */
const KEY_VERSION = 1;

/** Everything the key is made of. */
export interface CacheKeyInputs {
  /** The package manager. */
  readonly manager: PackageManager;
  /** Its lockfile's name (`package-lock.json`, `pnpm-lock.yaml`, …). */
  readonly lockfile: string;
  /** Hex SHA-256 of the lockfile's bytes. */
  readonly lockfileSha256: string;
  /** Hex SHA-256 of `paths.app`'s `package.json` (`npm ci` fails when it disagrees with the lock). */
  readonly packageJsonSha256: string;
  /** The runtime that runs the install (`node v20.20.2`, `bun 1.2.3`). */
  readonly runtime: string;
  /** Operating system and architecture (`linux-x86_64`): native modules differ per platform. */
  readonly platform: string;
  /** Config `paths.app`, normalized. */
  readonly app: string;
}

/**
 * The cache key of an install (pure): a hex SHA-256 over every input, prefixed with the
 * package manager so a listing of the cache reads.
 *
 * @param inputs manager, lockfile hash, runtime, platform and app path
 * @returns e.g. `npm-3f2a…` (68 characters)
 *
 * @example
 * ```ts
 * const key = dependencyCacheKey({
 *   manager: "npm",
 *   lockfile: "package-lock.json",
 *   lockfileSha256: "ab",
 *   packageJsonSha256: "cd",
 *   runtime: "node v20.20.2",
 *   platform: "linux-x86_64",
 *   app: ".",
 * });
 * ```
 */
export function dependencyCacheKey(inputs: CacheKeyInputs): string {
  const hash = createHash("sha256");
  hash.update(JSON.stringify([
    KEY_VERSION,
    inputs.manager,
    inputs.lockfile,
    inputs.lockfileSha256,
    inputs.packageJsonSha256,
    inputs.runtime,
    inputs.platform,
    inputs.app,
  ]));
  return `${inputs.manager}-${hash.digest("hex").slice(0, 64)}`;
}

/**
 * The program whose version is the key's runtime for a package manager: Bun runs its own
 * installs; npm, pnpm and Yarn run on Node.js.
 *
 * @param manager the package manager
 * @returns the program to ask `--version`
 */
export function runtimeProgram(manager: PackageManager): "bun" | "node" {
  return manager === "bun" ? "bun" : "node";
}

/** Asks a program for its version (`node --version`); injected so tests choose the runtime. */
export type VersionReader = (program: "bun" | "node") => Promise<string>;

/** Reads a program's version with `Deno.Command` (needs `--allow-run` for it). */
export const commandVersionReader: VersionReader = async (
  program: "bun" | "node",
): Promise<string> => {
  const out = await new Deno.Command(program, {
    args: ["--version"],
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).output();
  if (!out.success) throw new Error(`${program} --version exited ${out.code}`);
  return new TextDecoder().decode(out.stdout).trim();
};

/**
 * The key of a build's install for a cache (both the local and the bucket cache): undefined,
 * with one warning line, when the runtime's version cannot be read (a deploy task without
 * `node` in its `--allow-run`), so the build installs uncached instead of failing.
 *
 * @param context the build's cache context
 * @param readVersion how the runtime's version is read (default {@linkcode commandVersionReader})
 * @param warn where the line goes
 * @returns the key, or undefined when the install is not cached
 */
export async function installCacheKey(
  context: {
    readonly detection: Detection;
    readonly lockDir: string;
    readonly appDir: string;
    readonly app: string;
  },
  readVersion: VersionReader | undefined,
  warn: (line: string) => void,
): Promise<string | undefined> {
  try {
    const read = await readCacheKey(
      context.detection,
      context.lockDir,
      context.appDir,
      context.app,
      readVersion, // undefined: readCacheKey's default
    );
    return read?.key;
  } catch (err) {
    const program = runtimeProgram(context.detection.manager);
    warn(
      `dependency cache not used: \`${program} --version\` could not run (${
        err instanceof Error ? err.message : String(err)
      }); the deploy task's --allow-run needs ${program}`,
    );
    return undefined;
  }
}

/** Where {@linkcode readCacheKey} found what it hashed. */
export interface CacheKeySource {
  /** The key. */
  readonly key: string;
  /** The inputs it was made from (for `--json` and the log). */
  readonly inputs: CacheKeyInputs;
}

/**
 * Reads the key's inputs from an unpacked source: the lockfile the package manager was
 * detected by (in `lockDir`), `paths.app`'s `package.json`, the runtime's version.
 *
 * @param detection the package manager and its marker file
 * @param lockDir the directory holding the marker
 * @param appDir `paths.app` in the unpacked source
 * @param app config `paths.app` (normalized), part of the key
 * @param readVersion how the runtime's version is read
 * @returns the key, or undefined when the install is not cacheable (Deno, no lockfile)
 */
export async function readCacheKey(
  detection: Detection,
  lockDir: string,
  appDir: string,
  app: string,
  readVersion: VersionReader = commandVersionReader,
): Promise<CacheKeySource | undefined> {
  if (!CACHED_MANAGERS.includes(detection.manager) || detection.marker === "package.json") {
    return undefined; // no lockfile: an install may resolve differently each time
  }
  const sha = async (path: string) =>
    createHash("sha256").update(await Deno.readFile(path)).digest("hex");
  const inputs: CacheKeyInputs = {
    manager: detection.manager,
    lockfile: detection.marker,
    lockfileSha256: await sha(`${lockDir}/${detection.marker}`),
    packageJsonSha256: await sha(`${appDir}/package.json`).catch(() => ""),
    runtime: `${runtimeProgram(detection.manager)} ${await readVersion(
      runtimeProgram(detection.manager),
    )}`,
    platform: `${Deno.build.os}-${Deno.build.arch}`,
    app,
  };
  return { key: dependencyCacheKey(inputs), inputs };
}
