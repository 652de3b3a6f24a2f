/**
 * The deploy's temporary directories (the source zip, the unpacked and built source) under
 * the temp root (`$HOME/.cache/org-deploy`). Each holds an `.owner` file its run keeps an
 * exclusive lock on for as long as it lives, so a later run can tell a directory whose run
 * died (SIGKILL, a crash, a forced exit) from one another run is still using, and removes only
 * the former. A run removes its own directories when it ends, interrupted or not.
 *
 * Several runs of one user share the temp root (every CLI process cleans it before it builds),
 * so a directory must never be visible under a work-dir name before its owner holds the lock: a
 * clean-up in between would find the lock free and remove a directory just created. It is
 * therefore made and locked under a `.pending-` name no clean-up touches while young, and
 * renamed (atomically) into place once locked.
 *
 * @module
 */

import { basename, dirname, join } from "node:path";

/** The file whose lock marks a work directory as in use. */
export const OWNER_FILE = ".owner";

/** Prefixes of the directories {@linkcode removeStaleWorkDirs} may remove. */
export const WORK_DIR_PREFIXES = ["deploy-build-", "deploy-src-"] as const;

/** Prefix of a work directory being created: locked, then renamed into place. */
const PENDING_PREFIX = ".pending-";

/** A directory without an owner file younger than this may be one being created. */
const UNOWNED_GRACE_MS = 10 * 60_000;

/** A work directory, locked by this process until removed. */
export interface WorkDir extends AsyncDisposable {
  /** Its absolute path. */
  readonly path: string;
  /** Releases the lock and removes the directory (idempotent; errors ignored). */
  remove(): Promise<void>;
}

/**
 * Creates a work directory under `root` (the system temp dir without one) and locks it.
 *
 * @param prefix one of {@linkcode WORK_DIR_PREFIXES}, with any suffix (`deploy-build-<id>-`)
 * @param root the temp root
 * @returns the directory; `await using` removes it
 */
export async function makeWorkDir(prefix: string, root?: string): Promise<WorkDir> {
  const pending = await Deno.makeTempDir({
    prefix: `${PENDING_PREFIX}${prefix}`,
    ...(root ? { dir: root } : {}),
  });
  const path = join(dirname(pending), basename(pending).slice(PENDING_PREFIX.length));
  let owner: Deno.FsFile | undefined;
  try {
    owner = await Deno.open(`${pending}/${OWNER_FILE}`, { create: true, write: true });
    await owner.lock(true);
    // The lock belongs to the open file, so it holds across the rename.
    await Deno.rename(pending, path);
  } catch (err) {
    owner?.close();
    await Deno.remove(pending, { recursive: true }).catch(() => {});
    throw err;
  }
  const locked = owner;
  let removed = false;
  const remove = async () => {
    if (removed) return;
    removed = true;
    locked.close();
    await Deno.remove(path, { recursive: true }).catch(() => {});
  };
  return { path, remove, [Symbol.asyncDispose]: remove };
}

/**
 * Removes the work directories of earlier runs that ended without removing them: those whose
 * owner lock nobody holds, and `.pending-` ones older than the grace period (a run killed while
 * creating one). Directories of runs still going are left alone.
 *
 * @param root the temp root
 * @param now clock reading (for directories that never got an owner file)
 * @returns how many were removed
 */
export async function removeStaleWorkDirs(root: string, now: number = Date.now()): Promise<number> {
  let removed = 0;
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(root));
  } catch {
    return 0; // no temp root yet (or not readable): nothing of ours is there
  }
  for (const entry of entries) {
    if (!entry.isDirectory) continue;
    const pending = entry.name.startsWith(PENDING_PREFIX);
    const name = pending ? entry.name.slice(PENDING_PREFIX.length) : entry.name;
    if (!WORK_DIR_PREFIXES.some((p) => name.startsWith(p))) continue;
    const dir = `${root}/${entry.name}`;
    if (pending ? await isOlderThanGrace(dir, now) : await isStale(dir, now)) {
      await Deno.remove(dir, { recursive: true }).then(() => removed++, () => {});
    }
  }
  return removed;
}

async function isStale(dir: string, now: number): Promise<boolean> {
  let owner: Deno.FsFile;
  try {
    owner = await Deno.open(`${dir}/${OWNER_FILE}`, { read: true, write: true });
  } catch {
    return await isOlderThanGrace(dir, now);
  }
  try {
    return await owner.tryLock(true);
  } finally {
    owner.close(); // releases the lock just taken, if any
  }
}

/** Whether `dir` was last changed longer than the grace period ago (false when it is gone). */
async function isOlderThanGrace(dir: string, now: number): Promise<boolean> {
  const mtime = (await Deno.stat(dir).catch(() => undefined))?.mtime;
  return mtime instanceof Date && now - mtime.getTime() > UNOWNED_GRACE_MS;
}
