/**
 * The file operations configuration loading and `init` need, behind an interface so
 * commands run in-process in tests, plus the Deno implementation.
 *
 * @module
 */

/** File access used by config loading and `init`. Paths are absolute. */
export interface Files {
  /**
   * Whether anything (file or directory) exists at `path`. Rejects with
   * `Deno.errors.NotCapable` when the process may not look (narrow `--allow-read`).
   */
  exists(path: string): Promise<boolean>;
  /** The file's text; rejects with the platform error when missing or unreadable. */
  readTextFile(path: string): Promise<string>;
  /** Creates the file, failing if it already exists (no overwrite race with another run). */
  createTextFile(path: string, text: string): Promise<void>;
  /** Replaces the file's text (`deploy init` adding its task to a site's `deno.json`). */
  writeTextFile(path: string, text: string): Promise<void>;
  /** Creates a directory and its parents. */
  mkdir(path: string): Promise<void>;
}

/** {@linkcode Files} on the real file system through Deno's APIs. */
export const denoFiles: Files = {
  async exists(path) {
    try {
      await Deno.stat(path);
      return true;
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return false;
      throw err;
    }
  },
  readTextFile: (path) => Deno.readTextFile(path),
  createTextFile: (path, text) => Deno.writeTextFile(path, text, { createNew: true }),
  writeTextFile: (path, text) => Deno.writeTextFile(path, text),
  mkdir: (path) => Deno.mkdir(path, { recursive: true }),
};
