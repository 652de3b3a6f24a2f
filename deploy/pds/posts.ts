/**
 * The blog posts `deploy pds sync` publishes: Markdown files under `paths.content` with YAML
 * frontmatter, read by a real YAML parser (npm `yaml`), each turned into the
 * `site.standard.document` it becomes, or into a problem naming the file.
 *
 * Decisions only: the command lists and reads the files, and passes their text here.
 *
 * @module
 */
import type { ConfigIssue } from "@org/shared";
import { parseDocument } from "yaml";
import { recordKeyForPath } from "./rkey.ts";

/** A content file as read from disk: its path relative to `paths.content`, and its text. */
export interface ContentFile {
  /** Path relative to the content directory, `/`-separated (`2026/hello.md`). */
  readonly path: string;
  /** The file's text. */
  readonly text: string;
}

/** One post that will be published. */
export interface Post {
  /** The file it came from, relative to the content directory. */
  readonly file: string;
  /** The page's URL path: frontmatter `path`, else `/posts/<slug>/`. */
  readonly path: string;
  /** The record key derived from `path` (`recordKeyForPath`). */
  readonly rkey: string;
  readonly title: string;
  readonly description: string;
  /** `pubDate` as an ISO 8601 UTC datetime, the record's `publishedAt`. */
  readonly publishedAt: string;
}

/** What the content directory holds. */
export interface PostsRead {
  /** Posts to publish, sorted by path. */
  readonly posts: Post[];
  /** Files skipped because their frontmatter says `draft: true`. */
  readonly drafts: string[];
  /** Every bad file, each with its problem (path = the file). Publishing waits for none. */
  readonly issues: ConfigIssue[];
}

/** File extensions that hold posts. */
export const POST_EXTENSIONS: readonly string[] = [".md", ".mdx"];

/**
 * Whether a content file is a post (`.md` or `.mdx`).
 *
 * @param path the file's path
 * @returns true for Markdown and MDX files
 */
export function isPostFile(path: string): boolean {
  return POST_EXTENSIONS.some((ext) => path.toLowerCase().endsWith(ext));
}

/**
 * Reads every post file, reporting every problem at once: missing or unparsable frontmatter,
 * a missing or invalid `title`, `description` or `pubDate`, a bad `slug`, `path` or `draft`,
 * and two posts that would publish at the same path or record key.
 *
 * @param files the post files (see {@linkcode isPostFile}), paths relative to the content dir
 * @param contentDir the content directory as the user wrote it (`paths.content`), to name files
 * @returns the posts, the drafts skipped and the issues
 *
 * @example
 * ```ts
 * readPosts([{ path: "hello.md", text: "---\ntitle: Hi\ndescription: d\npubDate: 2026-01-02\n---\n" }], "src/content/blog");
 * // { posts: [{ path: "/posts/hello/", rkey: "…", … }], drafts: [], issues: [] }
 * ```
 */
export function readPosts(files: readonly ContentFile[], contentDir: string): PostsRead {
  const posts: Post[] = [];
  const drafts: string[] = [];
  const issues: ConfigIssue[] = [];
  const name = (file: string) => `${contentDir.replace(/\/+$/, "")}/${file}`;
  for (const file of [...files].sort((a, b) => a.path.localeCompare(b.path))) {
    const result = parsePost(file);
    if ("draft" in result) drafts.push(name(file.path));
    else if ("problems" in result) {
      for (const message of result.problems) issues.push({ path: name(file.path), message });
    } else posts.push(result.post);
  }
  issues.push(...clashes(posts, "path", name), ...clashes(posts, "rkey", name));
  posts.sort((a, b) => a.path.localeCompare(b.path));
  return { posts, drafts, issues };
}

/**
 * One post file: the post, or `draft`, or every problem found in it.
 *
 * @param file the file, its path relative to the content directory
 * @returns the outcome
 */
export function parsePost(
  file: ContentFile,
): { post: Post } | { draft: true } | { problems: string[] } {
  const front = frontmatterOf(file.text);
  if (typeof front === "string") return { problems: [front] };
  const problems: string[] = [];
  const title = requiredText(front, "title", problems);
  const description = requiredText(front, "description", problems);
  const publishedAt = pubDateOf(front.pubDate, problems);
  if (front.draft !== undefined && typeof front.draft !== "boolean") {
    problems.push(`draft must be true or false (got ${show(front.draft)})`);
  }
  const slug = slugOf(front.slug, file.path, problems);
  const path = pathOf(front.path, slug, problems);
  if (front.draft === true) return { draft: true };
  if (
    problems.length > 0 || path === undefined || title === undefined ||
    description === undefined || publishedAt === undefined
  ) return { problems };
  return {
    post: { file: file.path, path, rkey: recordKeyForPath(path), title, description, publishedAt },
  };
}

/** The frontmatter mapping, or the problem with it. */
function frontmatterOf(text: string): Record<string, unknown> | string {
  const match = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n?---[ \t]*(?:\r?\n|$)/.exec(text);
  if (!match) return "has no YAML frontmatter (a `---` block at the top of the file)";
  const yaml = match[1] ?? "";
  const doc = parseDocument(yaml, { prettyErrors: false, uniqueKeys: true });
  const error = doc.errors[0];
  if (error) {
    // The frontmatter starts on the file's second line, hence the + 2.
    const line = yaml.slice(0, error.pos[0]).split("\n").length + 1;
    return `frontmatter is not valid YAML (line ${line}): ${error.message.split("\n")[0]}`;
  }
  const value: unknown = doc.toJS();
  if (value === null || value === undefined) return "frontmatter is empty";
  if (typeof value !== "object" || Array.isArray(value)) return "frontmatter must be a mapping";
  return value as Record<string, unknown>;
}

function requiredText(
  front: Record<string, unknown>,
  key: string,
  problems: string[],
): string | undefined {
  const value = front[key];
  if (value === undefined || value === null) problems.push(`${key} is required`);
  else if (typeof value !== "string" || value.trim() === "") {
    problems.push(`${key} must be a non-empty string (got ${show(value)})`);
  } else return value.trim();
  return undefined;
}

/** `pubDate`: a YAML date or a date string; returned as an ISO UTC datetime. */
function pubDateOf(value: unknown, problems: string[]): string | undefined {
  if (value === undefined || value === null) {
    problems.push("pubDate is required");
    return undefined;
  }
  // A bare YAML date (2026-01-02) is a string under the YAML 1.2 core schema; a full datetime
  // may be quoted or not. Either way Date parses the ISO forms Astro sites write.
  const date = value instanceof Date ? value : typeof value === "string" ? new Date(value) : null;
  if (date === null || Number.isNaN(date.getTime())) {
    problems.push(`pubDate must be a date such as 2026-01-02 (got ${show(value)})`);
    return undefined;
  }
  return date.toISOString();
}

/** `slug` as written, else the file path without extension (`dir/index.md` → `dir`). */
function slugOf(value: unknown, file: string, problems: string[]): string | undefined {
  if (value === undefined) {
    return file.replace(/\.(md|mdx)$/i, "").replace(/(^|\/)index$/, "") || undefined;
  }
  if (
    typeof value !== "string" || !/^[^\s/]+(?:\/[^\s/]+)*$/.test(value) ||
    /(^|\/)\.\.?(\/|$)/.test(value)
  ) {
    problems.push(
      `slug must be a non-empty path without spaces, leading or trailing "/", "." or ".." (got ${
        show(value)
      })`,
    );
  }
  return typeof value === "string" ? value : undefined;
}

/** Frontmatter `path` as written, else `/posts/<slug>/`. */
function pathOf(value: unknown, slug: string | undefined, problems: string[]): string | undefined {
  if (value === undefined) return slug === undefined ? undefined : `/posts/${slug}/`;
  if (typeof value !== "string" || !/^\/\S*$/.test(value)) {
    problems.push(`path must start with "/" and hold no spaces (got ${show(value)})`);
    return undefined;
  }
  return value;
}

/** Posts sharing a `path` or `rkey`: one would overwrite the other's record. */
function clashes(posts: Post[], key: "path" | "rkey", name: (f: string) => string): ConfigIssue[] {
  const seen = new Map<string, Post>();
  const issues: ConfigIssue[] = [];
  for (const post of posts) {
    const first = seen.get(post[key]);
    // Same path means same key too: report that clash once, as a path clash.
    if (first && (key === "path" || first.path !== post.path)) {
      issues.push({
        path: name(post.file),
        message: key === "path"
          ? `publishes at ${post.path}, as ${name(first.file)} does`
          : `its record key ${post.rkey} equals that of ${
            name(first.file)
          }; change one post's path`,
      });
    } else if (!first) seen.set(post[key], post);
  }
  return issues;
}

function show(value: unknown): string {
  return JSON.stringify(value instanceof Date ? value.toISOString() : value) ?? String(value);
}
