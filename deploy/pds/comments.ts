/**
 * Comments from Bluesky: the replies to each announced post, read through an AppView's
 * `app.bsky.feed.getPostThread`, kept as a tree of what a page shows (author, text, facets,
 * time, likes, link), and written to `paths.commentsJson` by post path. Blocked and deleted
 * posts (`blockedPost`, `notFoundPost`) are left out with everything under them. The file is
 * written only when every thread was read: a slow or failing AppView leaves the previous one.
 *
 * @module
 */
import { DeployError } from "../errors.ts";
import { announcementOf, type RemoteRecord } from "./document_plan.ts";
import { parseAtUri } from "./publication.ts";

/** How deep a thread is read (the lexicon's `depth`; it allows up to 1000). */
export const THREAD_DEPTH = 100;

/** How long one thread may take before the AppView counts as unavailable. */
export const APPVIEW_TIMEOUT_MS = 15_000;

/** One reply as the site renders it. */
export interface Comment {
  /** The reply's AT-URI. */
  readonly uri: string;
  /** `https://bsky.app/profile/<handle>/post/<rkey>`. */
  readonly url: string;
  readonly author: {
    readonly did: string;
    readonly handle: string;
    readonly displayName?: string;
    /** The avatar image URL. */
    readonly avatar?: string;
  };
  readonly text: string;
  /** The reply's richtext facets (links, mentions, tags), as the record has them. */
  readonly facets: readonly unknown[];
  /** The record's `createdAt`. */
  readonly createdAt: string;
  readonly likeCount: number;
  readonly replies: readonly Comment[];
}

/** The comments of one announced post. */
export interface PostComments {
  /** The announcement on Bluesky, where readers reply. */
  readonly url: string;
  readonly replies: readonly Comment[];
}

/** `paths.commentsJson`: by post path. */
export type CommentsFile = Record<string, PostComments>;

/** What `getPostThread` answers in `thread` (and in `replies`): a union the lexicon closes. */
type ThreadNode = {
  $type?: string;
  post?: PostView;
  replies?: unknown[];
};

interface PostView {
  uri?: string;
  author?: { did?: string; handle?: string; displayName?: string; avatar?: string };
  record?: { text?: unknown; facets?: unknown; createdAt?: unknown };
  likeCount?: number;
}

const THREAD_VIEW = "app.bsky.feed.defs#threadViewPost";

/**
 * The link to a post in Bluesky's web app.
 *
 * @param handle the author's handle (their DID when the handle is not valid)
 * @param uri the post's AT-URI
 * @returns `https://bsky.app/profile/<handle>/post/<rkey>`
 */
export function postUrl(handle: string, uri: string): string {
  const rkey = uri.slice(uri.lastIndexOf("/") + 1);
  return `https://bsky.app/profile/${encodeURIComponent(handle)}/post/${encodeURIComponent(rkey)}`;
}

/**
 * The replies of a thread as comments, oldest first at every level. Only `threadViewPost`
 * nodes are kept: a `blockedPost` or `notFoundPost` (deleted) goes with all under it, as does
 * anything the lexicon does not describe.
 *
 * @param thread the `thread` of a `getPostThread` answer
 * @returns the replies to its root
 */
export function repliesOf(thread: unknown): Comment[] {
  const node = thread as ThreadNode | null;
  if (node?.$type !== THREAD_VIEW) return [];
  return (node.replies ?? []).flatMap((reply) => {
    const comment = commentOf(reply);
    return comment ? [comment] : [];
  }).sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.uri.localeCompare(b.uri));
}

function commentOf(value: unknown): Comment | undefined {
  const node = value as ThreadNode | null;
  const post = node?.post;
  if (node?.$type !== THREAD_VIEW || !post) return undefined;
  const { uri, author, record } = post;
  if (
    typeof uri !== "string" || typeof author?.did !== "string" ||
    typeof author.handle !== "string" || typeof record?.text !== "string" ||
    typeof record.createdAt !== "string"
  ) return undefined;
  const handle = author.handle === "handle.invalid" ? author.did : author.handle;
  return {
    uri,
    url: postUrl(handle, uri),
    author: {
      did: author.did,
      handle: author.handle,
      ...(typeof author.displayName === "string" && author.displayName !== "" &&
        { displayName: author.displayName }),
      ...(typeof author.avatar === "string" && { avatar: author.avatar }),
    },
    text: record.text,
    facets: Array.isArray(record.facets) ? record.facets : [],
    createdAt: record.createdAt,
    likeCount: typeof post.likeCount === "number" ? post.likeCount : 0,
    replies: repliesOf(node),
  };
}

/** What reading the comments needs. */
export interface CommentsDeps {
  /** `pds.appview`. */
  readonly appview: string;
  readonly fetch: typeof fetch;
  /** Per thread (default {@linkcode APPVIEW_TIMEOUT_MS}). */
  readonly timeoutMs?: number;
}

/**
 * The comments of every announced post of the publication: one `getPostThread` per post whose
 * document record has a `bskyPostRef`. An announcement the AppView does not know (deleted)
 * has no comments.
 *
 * @param documents the repository's `site.standard.document` records
 * @param publicationUri this site's publication (records of others are skipped)
 * @param deps the AppView and fetch
 * @returns the file's content
 * @throws {DeployError} appview_failed when a thread cannot be read (timeout, error answer)
 */
export async function readComments(
  documents: readonly RemoteRecord[],
  publicationUri: string,
  deps: CommentsDeps,
): Promise<CommentsFile> {
  const out: CommentsFile = {};
  const announced = documents
    .filter((d) => d.value.site === publicationUri && typeof d.value.path === "string")
    .flatMap((d) => {
      const uri = announcementOf(d.value);
      return uri ? [{ path: d.value.path as string, uri }] : [];
    })
    .sort((a, b) => a.path.localeCompare(b.path));
  for (const { path, uri } of announced) {
    const thread = await getPostThread(uri, deps);
    const root = (thread as ThreadNode | null)?.post;
    out[path] = {
      url: postUrl(root?.author?.handle ?? parseAtUri(uri)?.did ?? "", uri),
      replies: repliesOf(thread),
    };
  }
  return out;
}

/** `getPostThread`; null when the AppView knows no such post (`NotFound`). */
async function getPostThread(uri: string, deps: CommentsDeps): Promise<unknown> {
  const url = new URL("/xrpc/app.bsky.feed.getPostThread", deps.appview);
  url.searchParams.set("uri", uri);
  url.searchParams.set("depth", String(THREAD_DEPTH));
  url.searchParams.set("parentHeight", "0");
  const timeout = deps.timeoutMs ?? APPVIEW_TIMEOUT_MS;
  let response: Response;
  let body: { thread?: unknown; error?: unknown; message?: unknown };
  try {
    response = await deps.fetch(url, {
      headers: { accept: "application/json" },
      signal: AbortSignal.timeout(timeout),
    });
    body = await response.json();
  } catch (err) {
    const timedOut = err instanceof DOMException && err.name === "TimeoutError";
    throw new DeployError(
      "appview_failed",
      timedOut
        ? `the AppView ${deps.appview} did not answer the thread of ${uri} within ${timeout} ms`
        : `the AppView ${deps.appview} failed the thread of ${uri}: ${
          err instanceof Error ? err.message : String(err)
        }`,
      { hint: "run `deploy pds comments` again later; the comments file was kept", cause: err },
    );
  }
  if (response.ok) return body.thread ?? null;
  if (body.error === "NotFound") return null;
  throw new DeployError(
    "appview_failed",
    `the AppView ${deps.appview} answered HTTP ${response.status} ${String(body.error ?? "")} ` +
      `for the thread of ${uri}`,
    { hint: "check pds.appview; the comments file was kept" },
  );
}

/**
 * The `paths.commentsJson` text: stable (sorted paths, replies oldest first), so an unchanged
 * thread leaves the file byte for byte as it was.
 *
 * @param file the comments
 * @returns pretty JSON with a final newline
 */
export function commentsJson(file: CommentsFile): string {
  return JSON.stringify(file, null, 2) + "\n";
}
