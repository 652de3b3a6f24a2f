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
import { graphemeCount } from "../config/graphemes.ts";
import { markdownToText } from "./plain_text.ts";
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
  /** `updatedDate` as an ISO 8601 UTC datetime, the record's `updatedAt`. */
  readonly updatedAt?: string;
  /** `tags`, trimmed, in the order written (empty when none). */
  readonly tags: readonly string[];
  /**
   * The cover image as the frontmatter names it (`cover`, or Astro's `heroImage`): a path
   * under `paths.publicDir` when it starts with `/`, else relative to the post's file.
   * Absent for remote (`https:`) images, which are not uploaded.
   */
  readonly cover?: string;
  /** The body without markup (the record's `textContent`). */
  readonly textContent: string;
}

/**
 * Limits of the `site.standard.document` lexicon on what a post carries (strings in
 * graphemes and UTF-8 bytes), and ours on the number of tags (the lexicon sets none).
 */
export const POST_LIMITS = {
  title: { graphemes: 500, bytes: 5000 },
  description: { graphemes: 3000, bytes: 30000 },
  tag: { graphemes: 128, bytes: 1280 },
  tags: 64,
} as const;

/** C0 and C1 control characters (a tab or line break is allowed in a description only). */
const CONTROL = /(?![\t\n])\p{Cc}/u;
const CONTROL_OR_BREAK = /\p{Cc}/u;

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
  const parsed = frontmatterOf(file.text);
  if (typeof parsed === "string") return { problems: [parsed] };
  const { front, body } = parsed;
  const problems: string[] = [];
  const title = requiredText(front, "title", problems, POST_LIMITS.title, CONTROL_OR_BREAK);
  const description = requiredText(
    front,
    "description",
    problems,
    POST_LIMITS.description,
    CONTROL,
  );
  const publishedAt = pubDateOf(front.pubDate, problems, "pubDate");
  const updatedAt = front.updatedDate === undefined
    ? undefined
    : pubDateOf(front.updatedDate, problems, "updatedDate");
  const tags = tagsOf(front.tags, problems);
  const cover = coverOf(front, problems);
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
    post: {
      file: file.path,
      path,
      rkey: recordKeyForPath(path),
      title,
      description,
      publishedAt,
      ...(updatedAt !== undefined && { updatedAt }),
      tags,
      ...(cover !== undefined && { cover }),
      textContent: markdownToText(body),
    },
  };
}

/** `tags`: a list of short strings without control characters, at most `POST_LIMITS.tags`. */
function tagsOf(value: unknown, problems: string[]): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    problems.push(`tags must be a list of strings (got ${show(value)})`);
    return [];
  }
  if (value.length > POST_LIMITS.tags) {
    problems.push(`tags must hold at most ${POST_LIMITS.tags} tags (got ${value.length})`);
    return [];
  }
  const tags: string[] = [];
  value.forEach((tag, i) => {
    const problem = typeof tag !== "string" || tag.trim() === ""
      ? "must be a non-empty string"
      : textProblem(tag.trim(), POST_LIMITS.tag, CONTROL_OR_BREAK);
    if (problem) problems.push(`tags[${i}] ${problem} (got ${show(tag)})`);
    else tags.push((tag as string).trim());
  });
  return tags;
}

/** `cover` (or Astro's `heroImage`): a local image path; remote URLs are left out. */
function coverOf(front: Record<string, unknown>, problems: string[]): string | undefined {
  const key = front.cover !== undefined ? "cover" : "heroImage";
  const value = front[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string" || value.trim() === "" || CONTROL_OR_BREAK.test(value)) {
    problems.push(`${key} must be an image path (got ${show(value)})`);
    return undefined;
  }
  if (/^[a-z][a-z0-9+.-]*:/i.test(value)) return undefined;
  if (/(^|\/)\.\.(\/|$)/.test(value.replace(/^\.\//, ""))) {
    // A post names its own image; climbing out of its folder could reach any file to upload.
    problems.push(`${key} must not climb out of the post's folder with ".." (got ${show(value)})`);
    return undefined;
  }
  return value;
}

/** Why a string breaks a length limit or holds a control character; undefined when fine. */
function textProblem(
  text: string,
  limit: { graphemes: number; bytes: number },
  control: RegExp,
): string | undefined {
  if (control.test(text)) return "must not contain control characters";
  if (
    graphemeCount(text) > limit.graphemes || new TextEncoder().encode(text).length > limit.bytes
  ) {
    return `must be at most ${limit.graphemes} characters (and ${limit.bytes} bytes)`;
  }
  return undefined;
}

/** The frontmatter mapping and the body after it, or the problem with the frontmatter. */
function frontmatterOf(
  text: string,
): { front: Record<string, unknown>; body: string } | string {
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
  return { front: value as Record<string, unknown>, body: text.slice(match[0].length) };
}

function requiredText(
  front: Record<string, unknown>,
  key: string,
  problems: string[],
  limit: { graphemes: number; bytes: number },
  control: RegExp,
): string | undefined {
  const value = front[key];
  if (value === undefined || value === null) problems.push(`${key} is required`);
  else if (typeof value !== "string" || value.trim() === "") {
    problems.push(`${key} must be a non-empty string (got ${show(value)})`);
  } else {
    const problem = textProblem(value.trim(), limit, control);
    if (!problem) return value.trim();
    problems.push(`${key} ${problem}`);
  }
  return undefined;
}

/** `pubDate` (or `updatedDate`): a YAML date or a date string; an ISO UTC datetime. */
function pubDateOf(value: unknown, problems: string[], key: string): string | undefined {
  if (value === undefined || value === null) {
    problems.push(`${key} is required`);
    return undefined;
  }
  // A bare YAML date (2026-01-02) is a string under the YAML 1.2 core schema; a full datetime
  // may be quoted or not. Either way Date parses the ISO forms Astro sites write.
  const date = value instanceof Date ? value : typeof value === "string" ? new Date(value) : null;
  if (date === null || Number.isNaN(date.getTime())) {
    problems.push(`${key} must be a date such as 2026-01-02 (got ${show(value)})`);
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

/** A value quoted in a problem: JSON (control characters escaped), at most 80 characters. */
function show(value: unknown): string {
  const text = JSON.stringify(value instanceof Date ? value.toISOString() : value) ??
    String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
