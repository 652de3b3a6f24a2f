/**
 * A post's cover image as a blob: found beside the post or under `paths.publicDir`, checked
 * against the lexicons' limits (`site.standard.document` `coverImage` and the link card's
 * `thumb` both accept `image/*` up to 1,000,000 bytes), and addressed by the CID the PDS will
 * give it, so an unchanged cover is never uploaded again.
 *
 * @module
 */
import { contentTypeFor } from "../sync/content_type.ts";
import { blobCid } from "./cid.ts";
import type { Post } from "./posts.ts";

/** The lexicons' `maxSize` for a cover image and a link card's thumbnail, in bytes. */
export const COVER_MAX_BYTES = 1_000_000;

/** A blob as records reference it (the AT Protocol data model's `blob` type). */
export interface BlobRef {
  readonly $type: "blob";
  readonly ref: { readonly $link: string };
  readonly mimeType: string;
  readonly size: number;
}

/** A cover read from disk: its reference and the bytes to upload if the PDS lacks them. */
export interface LocalBlob {
  readonly ref: BlobRef;
  readonly bytes: Uint8Array;
}

/** Reads a repository file's size, and its bytes when it is at most `maxBytes`. */
export type ReadBinary = (
  path: string,
  maxBytes: number,
) => Promise<{ size: number; bytes?: Uint8Array } | null>;

/**
 * The repository path of a post's cover: under `publicDir` when it starts with `/` (the site
 * serves it there), else relative to the post's own folder.
 *
 * @param post the post (with `cover`)
 * @param dirs `paths.content` and `paths.publicDir`
 * @returns the repository-relative path
 */
export function coverPath(
  post: Pick<Post, "file" | "cover">,
  dirs: { content: string; publicDir: string },
): string | undefined {
  if (post.cover === undefined) return undefined;
  const trim = (p: string) => p.replace(/\/+$/, "");
  if (post.cover.startsWith("/")) return `${trim(dirs.publicDir)}${post.cover}`;
  const folder = post.file.includes("/") ? post.file.slice(0, post.file.lastIndexOf("/")) : "";
  const rel = post.cover.replace(/^(\.\/)+/, "");
  return [trim(dirs.content), folder, rel].filter((p) => p !== "").join("/");
}

/**
 * Reads and checks a post's cover.
 *
 * @param path its repository path ({@linkcode coverPath})
 * @param read reads the file
 * @returns the blob, or why it cannot be used (the caller warns and goes on without it)
 */
export async function loadCover(
  path: string,
  read: ReadBinary,
): Promise<{ blob: LocalBlob } | { problem: string }> {
  const mimeType = contentTypeFor(path).split(";")[0]!;
  if (!mimeType.startsWith("image/")) {
    return { problem: `cover ${path} is not an image (${mimeType}); the lexicon accepts image/*` };
  }
  const file = await read(path, COVER_MAX_BYTES);
  if (file === null) return { problem: `cover ${path} does not exist` };
  if (file.size > COVER_MAX_BYTES || file.bytes === undefined) {
    return {
      problem: `cover ${path} is ${file.size} bytes, over the ${COVER_MAX_BYTES}-byte limit ` +
        "of a cover image and a link card's thumbnail",
    };
  }
  return {
    blob: {
      ref: {
        $type: "blob",
        ref: { $link: await blobCid(file.bytes) },
        mimeType,
        size: file.size,
      },
      bytes: file.bytes,
    },
  };
}
