/**
 * The Bluesky post that announces a new post (`pds.announce`): its text from the template,
 * cut to Bluesky's limits, the link facet over the URL (UTF-8 byte offsets, as the richtext
 * lexicon counts), and the external embed (the link card). Pure: sync uploads the thumbnail
 * and writes the record.
 *
 * @module
 */
import { graphemeCount, graphemes } from "../config/graphemes.ts";
import { POST_MAX_GRAPHEMES } from "../config/schema.ts";
import type { BlobRef } from "./cover.ts";

/** The collection of Bluesky posts. */
export const POST_COLLECTION = "app.bsky.feed.post";

/** `app.bsky.feed.post` `text.maxLength`: UTF-8 bytes. */
export const POST_MAX_BYTES = 3000;

/** The ellipsis a shortened title or description ends with. */
const ELLIPSIS = "…";

/** A link facet: the byte range of the URL in the text. */
export interface LinkFacet {
  readonly index: { readonly byteStart: number; readonly byteEnd: number };
  readonly features: readonly [{ readonly $type: "app.bsky.richtext.facet#link"; uri: string }];
}

/** What fills the template. */
export interface AnnouncementFields {
  readonly title: string;
  readonly description: string;
  /** The post's canonical URL (never shortened). */
  readonly url: string;
}

const bytes = (text: string) => new TextEncoder().encode(text).length;

/**
 * The post text and its link facets: the template with `{title}`, `{description}` and `{url}`
 * replaced; when that is longer than 300 graphemes or 3000 bytes, the description is
 * shortened first (ending in "…"), then the title; the URL never is.
 *
 * @param template `pds.announce.template`
 * @param fields the values
 * @returns the text and one facet per `{url}`, or undefined when even without title and
 *   description the text does not fit (a template of URLs only, or a huge URL)
 *
 * @example
 * ```ts
 * announcementText("New: {title} {url}", { title: "Hi", description: "", url: "https://b.example/p/" });
 * // { text: "New: Hi https://b.example/p/", facets: [{ index: { byteStart: 8, byteEnd: 28 }, … }] }
 * ```
 */
export function announcementText(
  template: string,
  fields: AnnouncementFields,
): { text: string; facets: LinkFacet[] } | undefined {
  const title = graphemes(fields.title);
  const description = graphemes(fields.description);
  const attempt = (t: number, d: number) => {
    const out = render(template, {
      title: cut(title, t),
      description: cut(description, d),
      url: fields.url,
    });
    return graphemeCount(out.text) <= POST_MAX_GRAPHEMES && bytes(out.text) <= POST_MAX_BYTES
      ? out
      : undefined;
  };
  // The description gives way first, then the title: the longest that fits, by bisection.
  const d = longest(description.length, (n) => attempt(title.length, n) !== undefined);
  if (d !== undefined) return attempt(title.length, d);
  const t = longest(title.length, (n) => attempt(n, 0) !== undefined);
  return t === undefined ? undefined : attempt(t, 0);
}

/** The largest `n` in 0..max for which `fits(n)` holds (it holds below any n it holds for). */
function longest(max: number, fits: (n: number) => boolean): number | undefined {
  if (!fits(0)) return undefined;
  let lo = 0;
  let hi = max;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (fits(mid)) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/** The first `n` graphemes, with an ellipsis when that is not all of them. */
function cut(all: readonly string[], n: number): string {
  if (n >= all.length) return all.join("");
  if (n === 0) return "";
  return all.slice(0, n - 1).join("").trimEnd() + ELLIPSIS;
}

function render(
  template: string,
  values: Record<"title" | "description" | "url", string>,
): { text: string; facets: LinkFacet[] } {
  let text = "";
  const facets: LinkFacet[] = [];
  for (const part of template.split(/(\{(?:title|description|url)\})/)) {
    const key = /^\{(title|description|url)\}$/.exec(part)?.[1] as keyof typeof values | undefined;
    const value = key === undefined ? part : values[key];
    if (key === "url") {
      const byteStart = bytes(text);
      facets.push({
        index: { byteStart, byteEnd: byteStart + bytes(value) },
        features: [{ $type: "app.bsky.richtext.facet#link", uri: value }],
      });
    }
    text += value;
  }
  return { text, facets };
}

/**
 * The `app.bsky.feed.post` record: the text, its facets, and an external embed (the link
 * card) with the cover as its thumbnail when there is one.
 *
 * @param text what {@linkcode announcementText} returned
 * @param card the link card's URL, title and description
 * @param createdAt when (ISO 8601)
 * @param thumb the uploaded cover, when there is one
 * @returns the record
 */
export function announcementRecord(
  text: { text: string; facets: readonly LinkFacet[] },
  card: AnnouncementFields,
  createdAt: string,
  thumb?: BlobRef,
): Record<string, unknown> {
  return {
    $type: POST_COLLECTION,
    text: text.text,
    ...(text.facets.length > 0 && { facets: text.facets }),
    embed: {
      $type: "app.bsky.embed.external",
      external: {
        uri: card.url,
        title: card.title,
        description: card.description,
        ...(thumb !== undefined && { thumb }),
      },
    },
    createdAt,
  };
}
