/**
 * What each `deploy pds` command does, as functions of their dependencies: the commands in
 * `commands/` open the site, build these dependencies and print the results; the files a step
 * writes come back as data ({@linkcode FileWrite}) so the command writes them through the
 * CLI's file seam.
 *
 * @module
 */
import type { Logger } from "@org/shared";
import { DeployError } from "../errors.ts";
import { generateClientKey } from "./client_key.ts";
import { CLIENT_PATHS, clientJwks, clientMetadata, clientUrls } from "./client_metadata.ts";
import { checkDeployedDocuments } from "./deployed_documents.ts";
import { type DocumentSyncResult, syncDocuments } from "./document_sync.ts";
import { finishLogin, type OAuthDeps, startLogin } from "./oauth.ts";
import { type ContentFile, readPosts } from "./posts.ts";
import {
  atprotoJson,
  parseAtprotoJson,
  PUBLICATION_COLLECTION,
  publicationKey,
  publicationRecord,
  WELL_KNOWN_PATH,
} from "./publication.ts";
import { getRecord, putRecord } from "./repo.ts";
import type { SecretStore } from "./secret.ts";
import type { PdsAgent } from "./session.ts";

/** A file a step writes, relative to the repository root. */
export interface FileWrite {
  readonly path: string;
  readonly text: string;
}

/** Where the `paths.*` the publishing steps use point, repository-relative. */
export interface PublishingPaths {
  readonly publicDir: string;
  readonly content: string;
  readonly atprotoJson: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2) + "\n";
const join = (dir: string, path: string) => `${dir.replace(/\/+$/, "")}/${path}`;

/**
 * `pds keygen`: a new client key in the secret (dropping any session: it was bound to the old
 * key's client) and the two client documents to publish.
 *
 * @param input the secret, the site origin, `pds.name`, `paths.publicDir` and the time
 * @returns the new key's `kid` and the files to write
 */
export async function keygen(input: {
  store: SecretStore;
  origin: string;
  name: string;
  publicDir: string;
  now: Date;
}): Promise<{ kid: string; writes: FileWrite[] }> {
  const key = await generateClientKey(input.now);
  await input.store.update(() => ({ clientKey: key }));
  return {
    kid: key.kid,
    writes: [
      {
        path: join(input.publicDir, CLIENT_PATHS.metadata.slice(1)),
        text: json(clientMetadata(input.origin, input.name)),
      },
      { path: join(input.publicDir, CLIENT_PATHS.jwks.slice(1)), text: json(clientJwks(key)) },
    ],
  };
}

/**
 * `pds login`: checks the deployed client documents, runs the OAuth flow (the user approves in
 * a browser and pastes the callback URL back), and stores `{did, session}`.
 *
 * @param input the secret, origin, name, identifier, resolver, OAuth deps and the terminal
 * @returns the DID logged in as
 * @throws {DeployError} client_key_missing, client_documents_*, identity_unresolved,
 *   oauth_failed, aborted
 */
export async function login(input: {
  store: SecretStore;
  origin: string;
  name: string;
  identifier: string;
  handleResolver: string;
  deps: OAuthDeps;
  /** Prints the authorization URL and instructions. */
  show: (line: string) => void;
  /** Reads the pasted callback URL; null when input ends. */
  ask: (question: string) => Promise<string | null>;
}): Promise<{ did: string }> {
  const secret = await input.store.read();
  if (!secret?.clientKey) {
    throw new DeployError("client_key_missing", `no client key in secret ${input.store.name}`, {
      hint: "run `deploy pds keygen`, commit and deploy the files it writes, then log in",
    });
  }
  await checkDeployedDocuments(input.origin, input.name, secret.clientKey, input.deps.fetch);
  const client = { ...clientUrls(input.origin), key: secret.clientKey };
  const pending = await startLogin(client, input.identifier, input.handleResolver, input.deps);
  input.show("Open this URL in a browser, approve the access, then paste the address of the");
  input.show(`page it lands on (${client.redirectUri}?…):`);
  input.show("");
  input.show(`  ${pending.authorizationUrl}`);
  input.show("");
  const pasted = await input.ask("callback URL");
  if (pasted === null || pasted.trim() === "") {
    throw new DeployError("aborted", "login cancelled: no callback URL was pasted", {
      hint: "run `deploy pds login` again and paste the callback page's address",
    });
  }
  const { did, session } = await finishLogin(client, pending, pasted, input.deps);
  await input.store.update((s) => ({ ...s, did, session }));
  return { did };
}

/**
 * `pds init`: creates or updates the publication record and returns the well-known file and
 * `paths.atprotoJson` to write.
 *
 * @param input the logged-in PDS, the config, the current well-known file, time and randomness
 * @returns the publication's AT-URI, whether it was created, and the files to write
 * @throws {DeployError} publication_foreign
 */
export async function initPublication(input: {
  agent: PdsAgent;
  origin: string;
  name: string;
  description?: string;
  paths: PublishingPaths;
  /** The current `<publicDir>/.well-known/site.standard.publication`, or null. */
  wellKnown: string | null;
  now: number;
  random10: number;
}): Promise<{ publicationUri: string; created: boolean; writes: FileWrite[] }> {
  const { agent } = input;
  const rkey = publicationKey(input.wellKnown, agent.did, input.now, input.random10);
  const existing = await getRecord(agent, PUBLICATION_COLLECTION, rkey);
  const record = publicationRecord(existing?.value, {
    url: input.origin,
    name: input.name,
    ...(input.description !== undefined && { description: input.description }),
  });
  const { uri } = await putRecord(agent, PUBLICATION_COLLECTION, rkey, record, existing?.cid);
  return {
    publicationUri: uri,
    created: existing === null,
    writes: [
      { path: join(input.paths.publicDir, WELL_KNOWN_PATH), text: uri + "\n" },
      { path: input.paths.atprotoJson, text: atprotoJson(agent.did, uri) },
    ],
  };
}

/** What `pds sync` reports. */
export interface SyncReport extends DocumentSyncResult {
  /** The publication synced. */
  readonly publicationUri: string;
  /** Draft files skipped. */
  readonly drafts: string[];
}

/**
 * Reads `paths.atprotoJson` as `init` wrote it.
 *
 * @param text the file's text, or null when missing
 * @param path the file's path (for the message)
 * @returns the DID and publication URI
 * @throws {DeployError} publication_missing
 */
export function initialised(text: string | null, path: string): {
  did: string;
  publicationUri: string;
} {
  const parsed = text === null ? undefined : parseAtprotoJson(text);
  if (!parsed) {
    throw new DeployError(
      "publication_missing",
      text === null
        ? `${path} does not exist: the publication is not initialised`
        : `${path} is not what \`deploy pds init\` writes`,
      { hint: "run `deploy pds init` (after `deploy pds login`)" },
    );
  }
  return parsed;
}

/**
 * `pds sync`: publishes the posts to the initialised publication.
 *
 * @param input the logged-in PDS, the post files, `paths.content`, `paths.atprotoJson` text
 * @returns the report
 * @throws {DeployError} posts_invalid (every bad file listed), publication_missing,
 *   publication_foreign (logged in as another account than the one initialised)
 */
export async function syncPublication(input: {
  agent: PdsAgent;
  files: readonly ContentFile[];
  paths: PublishingPaths;
  atprotoJsonText: string | null;
  dryRun?: boolean;
  log: Logger;
}): Promise<SyncReport> {
  const { did, publicationUri } = initialised(input.atprotoJsonText, input.paths.atprotoJson);
  if (did !== input.agent.did) {
    throw new DeployError(
      "publication_foreign",
      `${input.paths.atprotoJson} names ${did}, but the session is for ${input.agent.did}`,
      { hint: `log in as ${did}, or run \`deploy pds init\` for this account` },
    );
  }
  const read = readPosts(input.files, input.paths.content);
  if (read.issues.length > 0) {
    throw new DeployError(
      "posts_invalid",
      `${
        new Set(read.issues.map((i) => i.path)).size
      } post file(s) under ${input.paths.content} cannot be published`,
      { issues: read.issues, hint: "fix the files listed above; nothing was published" },
    );
  }
  const result = await syncDocuments(input.agent, read.posts, publicationUri, input.dryRun);
  input.log.info("pds sync", {
    created: result.created.length,
    updated: result.updated.length,
    unchanged: result.unchanged,
    orphans: result.orphans.length,
  });
  return { ...result, publicationUri, drafts: read.drafts };
}
