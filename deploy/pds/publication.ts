/**
 * The site's `site.standard.publication` record and the two files that point at it:
 * `<publicDir>/.well-known/site.standard.publication` (its AT-URI, so readers can verify that
 * the site and the record belong together) and `paths.atprotoJson` (`{ did, publicationUri }`,
 * which the site's layout imports to render `<link rel="site.standard.document">` tags).
 *
 * @module
 */
import { DeployError } from "../errors.ts";
import { tidFromClock } from "./rkey.ts";

/** The record collection of a publication. */
export const PUBLICATION_COLLECTION = "site.standard.publication";

/** The URL path of the well-known file, under `paths.publicDir`. */
export const WELL_KNOWN_PATH = ".well-known/site.standard.publication";

/** An AT-URI split into its parts. */
export interface AtUri {
  readonly did: string;
  readonly collection: string;
  readonly rkey: string;
}

/**
 * Parses `at://<did>/<collection>/<rkey>`.
 *
 * @param text the URI
 * @returns the parts, or undefined when it is not such a URI
 */
export function parseAtUri(text: string): AtUri | undefined {
  const match =
    /^at:\/\/(did:[a-z]+:[a-zA-Z0-9._:%-]+)\/([a-zA-Z0-9.-]+)\/([a-zA-Z0-9._~:-]{1,512})$/
      .exec(text.trim());
  return match ? { did: match[1]!, collection: match[2]!, rkey: match[3]! } : undefined;
}

/**
 * The record key `init` writes the publication under: the one the well-known file already
 * names (re-running `init` updates the same record), else a new TID from the clock.
 *
 * @param wellKnown the well-known file's text, or null when there is none
 * @param did the logged-in account
 * @param now milliseconds since the epoch
 * @param random10 ten random bits (0–1023), for the TID's clock id
 * @returns the record key
 * @throws {DeployError} publication_foreign when the file names another account's record
 */
export function publicationKey(
  wellKnown: string | null,
  did: string,
  now: number,
  random10: number,
): string {
  if (wellKnown !== null && wellKnown.trim() !== "") {
    const uri = parseAtUri(wellKnown);
    if (!uri || uri.collection !== PUBLICATION_COLLECTION) {
      throw new DeployError(
        "publication_foreign",
        `${WELL_KNOWN_PATH} does not hold a publication AT-URI`,
        { hint: `delete the file (it is regenerated) and run \`deploy pds init\` again` },
      );
    }
    if (uri.did !== did) {
      throw new DeployError(
        "publication_foreign",
        `${WELL_KNOWN_PATH} names a publication of ${uri.did}, not of the logged-in ${did}`,
        {
          hint: "log in as that account, or delete the file to start a publication for this one",
        },
      );
    }
    return uri.rkey;
  }
  return tidFromClock(now, random10);
}

/** What the config says about the publication. */
export interface PublicationSettings {
  /** `https://<domain>`. */
  readonly url: string;
  /** `pds.name`. */
  readonly name: string;
  /** `pds.description`. */
  readonly description?: string;
}

/**
 * The publication record to put: the config's `url`, `name` and `description` over whatever
 * the record already holds, so `preferences` (and anything else) the owner set survive.
 *
 * @param existing the current record value, when there is one
 * @param settings from the config
 * @returns the record
 */
export function publicationRecord(
  existing: Readonly<Record<string, unknown>> | undefined,
  settings: PublicationSettings,
): Record<string, unknown> {
  return {
    ...existing,
    $type: PUBLICATION_COLLECTION,
    url: settings.url,
    name: settings.name,
    ...(settings.description !== undefined && { description: settings.description }),
  };
}

/**
 * The `paths.atprotoJson` file's text.
 *
 * @param did the account
 * @param publicationUri the publication's AT-URI
 * @returns pretty JSON with a final newline
 */
export function atprotoJson(did: string, publicationUri: string): string {
  return JSON.stringify({ did, publicationUri }, null, 2) + "\n";
}

/**
 * Reads `paths.atprotoJson`, as `sync` and the post-deploy step need it.
 *
 * @param text the file's text
 * @returns the DID and publication URI, or undefined when the file is not what init wrote
 */
export function parseAtprotoJson(
  text: string,
): { did: string; publicationUri: string } | undefined {
  try {
    const value = JSON.parse(text) as { did?: unknown; publicationUri?: unknown };
    const uri = typeof value.publicationUri === "string"
      ? parseAtUri(value.publicationUri)
      : undefined;
    if (typeof value.did !== "string" || !uri || uri.did !== value.did) return undefined;
    return { did: value.did, publicationUri: value.publicationUri as string };
  } catch {
    return undefined;
  }
}
