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
import { coverPath, loadCover, type LocalBlob, type ReadBinary } from "./cover.ts";
import {
  type AnnounceOptions,
  type DocumentSyncResult,
  type PruneOptions,
  syncDocuments,
} from "./document_sync.ts";
import { finishLogin, type OAuthDeps, startLogin } from "./oauth.ts";
import { type ContentFile, type Post, readPosts } from "./posts.ts";
import {
  atprotoJson,
  parseAtprotoJson,
  PUBLICATION_COLLECTION,
  publicationKey,
  publicationRecord,
  WELL_KNOWN_PATH,
} from "./publication.ts";
import { type Comment, type CommentsDeps, commentsJson, readComments } from "./comments.ts";
import { DOCUMENT_COLLECTION } from "./document_plan.ts";
import { getRecord, listRecords, putRecord } from "./repo.ts";
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
  readonly commentsJson: string;
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
 * `pds sync`: publishes the posts to the initialised publication, with their covers, announcing
 * new posts when asked and deleting the records of posts that are gone when asked.
 *
 * @param input the logged-in PDS, the post files, the paths, `paths.atprotoJson` text, how to
 *   read a cover, and the announce and prune options
 * @returns the report (a cover that cannot be used is a warning naming the post's file)
 * @throws {DeployError} posts_invalid (every bad file listed), publication_missing,
 *   publication_foreign (logged in as another account than the one initialised)
 */
export async function syncPublication(input: {
  agent: PdsAgent;
  files: readonly ContentFile[];
  paths: PublishingPaths;
  atprotoJsonText: string | null;
  /** Reads a cover image (size first: an oversized one is never read whole). */
  readBinary: ReadBinary;
  dryRun?: boolean;
  announce?: AnnounceOptions;
  prune?: PruneOptions;
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
  const { covers, warnings } = await readCovers(read.posts, input.paths, input.readBinary);
  const result = await syncDocuments(input.agent, read.posts, publicationUri, {
    covers,
    ...(input.dryRun !== undefined && { dryRun: input.dryRun }),
    ...(input.announce !== undefined && { announce: input.announce }),
    ...(input.prune !== undefined && { prune: input.prune }),
  });
  input.log.info("pds sync", {
    created: result.created.length,
    updated: result.updated.length,
    unchanged: result.unchanged,
    announced: result.announced.length,
    orphans: result.orphans.length,
    pruned: result.pruned.length,
  });
  return {
    ...result,
    warnings: [...warnings, ...result.warnings],
    publicationUri,
    drafts: read.drafts,
  };
}

/**
 * `pds comments`: reads the replies to every announced post through the AppView and returns
 * `paths.commentsJson` to write. Nothing is returned to write when any thread fails: the
 * previous file stays.
 *
 * @param input the logged-in PDS (for the document records), the paths, the
 *   `paths.atprotoJson` text, and the AppView
 * @returns the file to write and how many posts and comments it holds
 * @throws {DeployError} publication_missing, appview_failed, pds_request_failed
 */
export async function refreshComments(input: {
  agent: PdsAgent;
  paths: PublishingPaths;
  atprotoJsonText: string | null;
  appview: CommentsDeps;
}): Promise<{ posts: number; comments: number; write: FileWrite }> {
  const { publicationUri } = initialised(input.atprotoJsonText, input.paths.atprotoJson);
  const documents = await listRecords(input.agent, DOCUMENT_COLLECTION);
  const file = await readComments(documents, publicationUri, input.appview);
  const count = (replies: readonly Comment[]): number =>
    replies.reduce((n, c) => n + 1 + count(c.replies), 0);
  return {
    posts: Object.keys(file).length,
    comments: Object.values(file).reduce((n, p) => n + count(p.replies), 0),
    write: { path: input.paths.commentsJson, text: commentsJson(file) },
  };
}

/** Every post's usable cover by record key; each unusable one is a warning naming its file. */
async function readCovers(
  posts: readonly Post[],
  paths: PublishingPaths,
  read: ReadBinary,
): Promise<{ covers: Map<string, LocalBlob>; warnings: string[] }> {
  const covers = new Map<string, LocalBlob>();
  const warnings: string[] = [];
  for (const post of posts) {
    const path = coverPath(post, paths);
    if (path === undefined) continue;
    const out = await loadCover(path, read);
    if ("blob" in out) covers.set(post.rkey, out.blob);
    else {
      warnings.push(
        `${join(paths.content, post.file)}: ${out.problem}; the post is published without it`,
      );
    }
  }
  return { covers, warnings };
}
