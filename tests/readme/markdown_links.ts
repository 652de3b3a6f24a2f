/**
 * The relative links of the repository's Markdown (README.md and docs/), and whether each one
 * resolves: the file exists and, for `#anchor`, the target has that heading (GitHub's slugs) or an
 * explicit `<a id>`. Pure over file texts, so the rules are tested without the disk.
 *
 * @module
 */
import { dirname, join, normalize } from "node:path";

/** One relative link found in a Markdown file. */
export interface MarkdownLink {
  /** The file it is in, repository-relative. */
  readonly from: string;
  /** The target as written: `docs/cli.md#errors`, `#quick-start`. */
  readonly target: string;
  /** 1-based line. */
  readonly line: number;
}

/** The text with fenced code blocks blanked (line numbers kept). */
function unfenced(text: string): string {
  return text.replace(
    /^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm,
    (block) => block.replace(/[^\n]/g, " "),
  );
}

/** Text outside fenced code blocks and inline code, where a link is a link. */
function prose(text: string): string {
  return unfenced(text).replace(/`[^`\n]*`/g, (code) => " ".repeat(code.length));
}

/**
 * Every relative link (and same-file anchor) in a Markdown text: inline links and images, and
 * reference definitions; external (`scheme:`) targets are left out.
 *
 * @param from the file's repository-relative path
 * @param text its contents
 * @returns the links, in order
 */
export function relativeLinks(from: string, text: string): MarkdownLink[] {
  const links: MarkdownLink[] = [];
  const lines = prose(text).split("\n");
  lines.forEach((l, i) => {
    const targets = [
      ...[...l.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
      ...[...l.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/g)].map((m) => m[1]!),
    ];
    for (const target of targets) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ from, target, line: i + 1 });
    }
  });
  return links;
}

/**
 * GitHub's anchors of a Markdown text: each heading's slug (lower-case, punctuation dropped,
 * spaces to `-`, `-1`, `-2` … for repeats) and every `<a id="…">` / `<a name="…">`.
 *
 * @param text the Markdown
 * @returns the anchors
 */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of unfenced(text).split("\n")) {
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading) {
      const base = heading[1]!
        .replace(/<[^>]+>/g, "")
        .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, "")
        .trim()
        .replace(/\s/g, "-");
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      anchors.add(n === 0 ? base : `${base}-${n}`);
    }
  }
  // Explicit anchors count wherever they are (inline HTML is not code).
  for (const m of text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
  return anchors;
}

/**
 * Why a link does not resolve, or undefined when it does.
 *
 * @param link the link
 * @param read a repository-relative path's text, `undefined` when no such file, `""` for a
 *   directory
 * @returns the problem, one line
 */
export function brokenLink(
  link: MarkdownLink,
  read: (path: string) => string | undefined,
): string | undefined {
  const [rawPath, anchor] = link.target.split("#", 2) as [string, string | undefined];
  const path = rawPath === ""
    ? link.from
    : normalize(join(dirname(link.from), decodeURIComponent(rawPath)));
  if (path.startsWith("..")) return `${link.target} leaves the repository`;
  const text = read(path);
  if (text === undefined) return `${path} does not exist`;
  if (anchor === undefined || anchor === "" || !path.endsWith(".md")) return undefined;
  return anchorsOf(text).has(anchor.toLowerCase())
    ? undefined
    : `${path} has no heading or anchor "#${anchor}"`;
}
