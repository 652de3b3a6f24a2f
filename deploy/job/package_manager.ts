/**
 * Which package manager installs and builds a site, detected from its lockfile.
 *
 * @module
 */
import { DeployError } from "../errors.ts";

/** A supported package manager. */
export type PackageManager = "pnpm" | "npm" | "yarn" | "bun" | "deno";

/** One command line to run. */
export interface Step {
  /** Program. */
  readonly cmd: string;
  /** Arguments. */
  readonly args: readonly string[];
}

/** Marker files in precedence order: a JS lockfile beats a Deno config beside it. */
const MARKERS: readonly (readonly [string, PackageManager])[] = [
  ["pnpm-lock.yaml", "pnpm"],
  ["bun.lockb", "bun"],
  ["bun.lock", "bun"],
  ["yarn.lock", "yarn"],
  ["package-lock.json", "npm"],
  ["deno.lock", "deno"],
  ["deno.json", "deno"],
  ["deno.jsonc", "deno"],
];

/** What a directory tells about its package manager. */
export interface Detection {
  /** The package manager. */
  readonly manager: PackageManager;
  /** The file that decided it. */
  readonly marker: string;
}

/**
 * Picks the package manager from the file names present in one directory: `pnpm-lock.yaml`
 * → pnpm, `bun.lockb`/`bun.lock` → bun, `yarn.lock` → yarn, `package-lock.json` → npm,
 * `deno.lock`/`deno.json(c)` → deno, a bare `package.json` → npm; otherwise undefined.
 *
 * @param names file names in the directory
 * @returns the detection or undefined
 */
export function packageManagerFrom(names: ReadonlySet<string>): Detection | undefined {
  for (const [marker, manager] of MARKERS) if (names.has(marker)) return { manager, marker };
  if (names.has("package.json")) return { manager: "npm", marker: "package.json" };
  return undefined;
}

/**
 * The install and build commands for a package manager. Installs are frozen to the lockfile
 * when there is one, so a deploy builds what was committed.
 *
 * @param detection what {@linkcode packageManagerFrom} found
 * @param names file names present (a `.yarnrc.yml` means Yarn Berry's `--immutable`)
 * @returns install then build
 */
export function buildSteps(detection: Detection, names: ReadonlySet<string> = new Set()): Step[] {
  switch (detection.manager) {
    case "pnpm":
      return [{ cmd: "pnpm", args: ["install", "--frozen-lockfile"] }, {
        cmd: "pnpm",
        args: ["run", "build"],
      }];
    case "bun":
      return [{ cmd: "bun", args: ["install", "--frozen-lockfile"] }, {
        cmd: "bun",
        args: ["run", "build"],
      }];
    case "yarn":
      return [
        {
          cmd: "yarn",
          args: ["install", names.has(".yarnrc.yml") ? "--immutable" : "--frozen-lockfile"],
        },
        { cmd: "yarn", args: ["run", "build"] },
      ];
    case "npm":
      return [
        { cmd: "npm", args: detection.marker === "package-lock.json" ? ["ci"] : ["install"] },
        { cmd: "npm", args: ["run", "build"] },
      ];
    case "deno":
      return [{ cmd: "deno", args: ["install"] }, { cmd: "deno", args: ["task", "build"] }];
  }
}

/**
 * The install step for a tree whose dependencies were restored from the cache: it checks the
 * restored `node_modules` against the lockfile and fills any gap, where the clean install would
 * delete them first (`npm ci` always starts from an empty `node_modules`). pnpm, Yarn and Bun's
 * frozen installs already keep a matching tree, so theirs is unchanged.
 *
 * @param install the clean install step ({@linkcode buildSteps}' first)
 * @returns the step to run after a restore
 */
export function reuseInstallStep(install: Step): Step {
  if (install.cmd !== "npm") return install;
  // The key holds the lockfile and package.json, so a restored tree was installed by `npm ci`
  // from these very files: `npm install` finds it complete and leaves the lockfile as it is.
  return { cmd: "npm", args: ["install", "--prefer-offline", "--no-audit", "--no-fund"] };
}

/**
 * Detects the package manager for `appDir`, looking in it and then in each parent up to
 * `rootDir` (a workspace keeps its lockfile at the root).
 *
 * @param appDir where the build runs
 * @param rootDir the unpacked repository root
 * @returns the detection, the steps to run and the directory holding the marker file
 * @throws DeployError `package_manager_unknown` when no marker file is found
 */
export async function detectPackageManager(
  appDir: string,
  rootDir: string,
): Promise<{ detection: Detection; steps: Step[]; dir: string }> {
  const appNames = await namesIn(appDir);
  let dir = appDir;
  for (;;) {
    const names = dir === appDir ? appNames : await namesIn(dir);
    const found = packageManagerFrom(names);
    // A bare package.json in the app dir only wins if no parent has a real lockfile.
    if (found && (found.marker !== "package.json" || dir === rootDir)) {
      return {
        detection: found,
        steps: buildSteps(found, new Set([...names, ...appNames])),
        dir,
      };
    }
    if (dir === rootDir || !dir.startsWith(rootDir)) break;
    dir = dir.slice(0, dir.lastIndexOf("/")) || rootDir;
  }
  const bare = packageManagerFrom(appNames);
  if (bare) return { detection: bare, steps: buildSteps(bare, appNames), dir: appDir };
  throw new DeployError(
    "package_manager_unknown",
    `no lockfile or package.json in ${appDir}`,
    {
      hint:
        "commit a lockfile (pnpm-lock.yaml, package-lock.json, yarn.lock, bun.lock, deno.lock) or set paths.app",
    },
  );
}

async function namesIn(dir: string): Promise<Set<string>> {
  const names = new Set<string>();
  try {
    for await (const e of Deno.readDir(dir)) names.add(e.name);
  } catch (err) {
    if (!(err instanceof Deno.errors.NotFound)) throw err;
  }
  return names;
}
