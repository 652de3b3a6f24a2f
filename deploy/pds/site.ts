/**
 * What a `pds` command works with: the site's publishing context. The opener (in the command
 * layer, on top of the one site context) fills it; this module says what it holds and which
 * configuration every publishing command needs.
 *
 * @module
 */
import type { PdsConfig } from "../config/pds_config.ts";
import { DeployError } from "../errors.ts";
import type { ReadBinary } from "./cover.ts";
import type { OAuthDeps } from "./oauth.ts";
import type { FileWrite, PublishingPaths } from "./publishing.ts";
import type { SecretStore } from "./secret.ts";

/** The site as the `pds` commands see it. */
export interface PdsSite {
  readonly env: string;
  /** `https://<domain>`: the publication's URL and the OAuth client's home. */
  readonly origin: string;
  /** The checked `pds` section. */
  readonly pds: PdsConfig;
  /** `paths.publicDir`, `content`, `atprotoJson`, `commentsJson`, repository-relative. */
  readonly paths: PublishingPaths;
  /** The `pds.secretName` secret. */
  readonly store: SecretStore;
  /** HTTP and clock for the OAuth flow and the PDS. */
  readonly oauth: OAuthDeps;
  /** A repository file's text; null when it does not exist. */
  readFile(path: string): Promise<string | null>;
  /** A repository file's size, and its bytes when at most `maxBytes`; null when missing. */
  readonly readBinary: ReadBinary;
  /** Writes (creating or replacing) a repository file, creating its directory. */
  writeFile(path: string, text: string): Promise<void>;
  /** Every file under a repository directory, relative to it; empty when it does not exist. */
  listFiles(dir: string): Promise<string[]>;
}

/**
 * The `pds` section and `domain` every publishing command needs, or the refusal naming what to
 * add.
 *
 * @param pds the checked section (`null` when absent)
 * @param domain the resolved `domain` (`--domain` included)
 * @param file the config file (for the message)
 * @returns the section and the domain
 * @throws {DeployError} pds_not_configured
 */
export function publishingSettings(
  pds: PdsConfig | null,
  domain: string | undefined,
  file: string,
): { pds: PdsConfig; domain: string } {
  if (pds === null) {
    throw new DeployError("pds_not_configured", `${file} has no \`pds\` section`, {
      hint: 'add `"pds": { "name": "<publication name>" }` (docs/pds.md)',
    });
  }
  if (domain === undefined) {
    throw new DeployError("pds_not_configured", `${file} has no \`domain\``, {
      hint: 'add `"domain": "<your domain>"`: the OAuth client and the publication live there',
    });
  }
  return { pds, domain };
}

/**
 * Writes the files a publishing step returned, in order, through the site's file seam.
 *
 * @param site where to write
 * @param writes the step's files
 * @returns their paths (what `--json` lists)
 */
export async function writeAll(
  site: Pick<PdsSite, "writeFile">,
  writes: readonly FileWrite[],
): Promise<string[]> {
  for (const w of writes) await site.writeFile(w.path, w.text);
  return writes.map((w) => w.path);
}
