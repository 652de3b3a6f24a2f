/**
 * Test helper: a temporary directory tree.
 *
 * @module
 */

/**
 * Writes `files` (repo-relative path → content) under a fresh temp dir.
 *
 * @param files the tree
 * @returns the temp dir's path; the caller removes it
 */
export async function makeTree(files: Record<string, string>): Promise<string> {
  const root = await Deno.makeTempDir({ prefix: "src-" });
  for (const [path, body] of Object.entries(files)) {
    const abs = `${root}/${path}`;
    await Deno.mkdir(abs.slice(0, abs.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(abs, body);
  }
  return root;
}
