/**
 * A site repository as the deploy CLI meets it: `.gitignore`d `dist/`, a `deno task build`
 * that copies `src/` to `dist/`, and a real git commit (the build's revision).
 *
 * @module
 */
import { join } from "node:path";

/** The site's build: copies `src/` to `dist/`, as a real static-site build would emit it. */
export const BUILD_SCRIPT = `
const walk = async (from, to) => {
  await Deno.mkdir(to, { recursive: true });
  for await (const e of Deno.readDir(from)) {
    if (e.isDirectory) await walk(from + "/" + e.name, to + "/" + e.name);
    else await Deno.copyFile(from + "/" + e.name, to + "/" + e.name);
  }
};
await walk("src", "dist");
console.log("site built");
`;

/** The source files of the fixture site; `src/` becomes the site. */
export const SITE_FILES: Readonly<Record<string, string>> = {
  "deno.json": JSON.stringify({
    tasks: { build: "deno run --allow-read=. --allow-write=dist build.js" },
  }),
  "build.js": BUILD_SCRIPT,
  ".gitignore": "dist/\n",
  "src/index.html": "<h1>home</h1>",
  "src/blog/index.html": "<h1>blog</h1>",
  "src/_astro/app.1a2b3c4d.css": "body{}",
  "src/img/logo.png": "png",
};

/** The site keys a build of {@linkcode SITE_FILES} produces (robots/sitemap excluded). */
export const SITE_KEYS = [
  "_astro/app.1a2b3c4d.css",
  "blog/index.html",
  "img/logo.png",
  "index.html",
];

/**
 * Runs git in `root` with a fixed identity (no global git config needed).
 *
 * @param root the repository
 * @param args git arguments
 */
export async function git(root: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args],
    cwd: root,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

/**
 * Writes the fixture site into `root` (replacing a placeholder `.git`) and commits it.
 *
 * @param root the site repo directory (its `config/` is kept and committed too)
 */
export async function writeSiteRepo(root: string): Promise<void> {
  await Deno.remove(join(root, ".git"), { recursive: true }).catch(() => {});
  for (const [path, body] of Object.entries(SITE_FILES)) {
    const abs = join(root, path);
    await Deno.mkdir(abs.slice(0, abs.lastIndexOf("/")), { recursive: true });
    await Deno.writeTextFile(abs, body);
  }
  await git(root, "init", "-q");
  await git(root, "add", "-A");
  await git(root, "commit", "-q", "-m", "site");
}
