/**
 * AT Protocol identity for `deploy pds login`: a handle becomes a DID through the configured
 * resolver (`pds.handleResolver`), the DID's document (`did:plc` from the PLC directory,
 * `did:web` from the host's `/.well-known/did.json`) names the account's PDS, and the PDS's
 * protected-resource metadata names the authorization server that may issue tokens for it.
 * Every hop is HTTPS: a plain-http hop is refused, so nobody on the path can redirect a login.
 *
 * @module
 */
import { DeployError } from "../errors.ts";

/** What identity resolution needs from the outside. */
export interface IdentityDeps {
  /** HTTP client (tests pass one that trusts their test CA). */
  readonly fetch: typeof fetch;
  /** PLC directory origin; default `https://plc.directory`. */
  readonly plcDirectory?: string;
}

/** The PLC directory `did:plc` identities resolve through. */
export const DEFAULT_PLC_DIRECTORY = "https://plc.directory";

const DID = /^did:(plc:[a-z2-7]{24}|web:[a-zA-Z0-9._%-]+)$/;
const HANDLE =
  /^([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/;

/** An account as `login` found it. */
export interface ResolvedIdentity {
  readonly did: string;
  /** The handle typed, when one was typed. */
  readonly handle?: string;
  /** Origin of the account's PDS (`https://…`). */
  readonly pds: string;
}

/**
 * Whether a string is a DID this tool can resolve (`did:plc:…`, `did:web:…`).
 *
 * @param value the string
 * @returns true for a supported DID
 */
export function isSupportedDid(value: string): boolean {
  return DID.test(value);
}

/**
 * Resolves what the user typed after `--identifier` to the account's DID and PDS. A DID skips
 * the handle resolver; a handle must also be claimed back by the DID document
 * (`alsoKnownAs: at://<handle>`), else anyone's resolver answer could point a handle anywhere.
 *
 * @param identifier a handle (`alice.example.com`, `@` allowed) or a DID
 * @param handleResolver `pds.handleResolver`
 * @param deps fetch and the PLC directory
 * @returns the DID, the handle and the PDS origin
 * @throws {DeployError} identity_unresolved naming the hop that failed
 */
export async function resolveIdentity(
  identifier: string,
  handleResolver: string,
  deps: IdentityDeps,
): Promise<ResolvedIdentity> {
  const typed = identifier.trim().replace(/^@/, "");
  if (typed.startsWith("did:")) {
    if (!isSupportedDid(typed)) {
      throw unresolved(`"${typed}" is not a did:plc or did:web DID`, "check the DID");
    }
    const doc = await resolveDidDocument(typed, deps);
    return { did: typed, pds: pdsOfDocument(typed, doc) };
  }
  const handle = typed.toLowerCase();
  if (!HANDLE.test(handle)) {
    throw unresolved(
      `"${identifier}" is neither a handle nor a DID`,
      "pass --identifier alice.example.com or --identifier did:plc:…",
    );
  }
  const did = await resolveHandle(handle, handleResolver, deps);
  const doc = await resolveDidDocument(did, deps);
  const aka = Array.isArray(doc.alsoKnownAs) ? doc.alsoKnownAs : [];
  if (!aka.some((a) => typeof a === "string" && a.toLowerCase() === `at://${handle}`)) {
    throw unresolved(
      `the DID document of ${did} does not claim the handle ${handle}`,
      "log in with the DID instead, or fix the handle's DNS/well-known record",
    );
  }
  return { did, handle, pds: pdsOfDocument(did, doc) };
}

/**
 * A handle's DID through `com.atproto.identity.resolveHandle` on the resolver.
 *
 * @param handle the handle, lower-case
 * @param resolver the resolver's https origin
 * @param deps fetch
 * @returns the DID
 */
export async function resolveHandle(
  handle: string,
  resolver: string,
  deps: IdentityDeps,
): Promise<string> {
  const url = new URL("/xrpc/com.atproto.identity.resolveHandle", resolver);
  url.searchParams.set("handle", handle);
  const body = await getJson(url, `resolve the handle ${handle} through ${resolver}`, deps);
  const did = (body as { did?: unknown }).did;
  if (typeof did !== "string" || !isSupportedDid(did)) {
    throw unresolved(`${resolver} answered no usable DID for ${handle}`, "check the handle");
  }
  return did;
}

/** A DID document (only what this tool reads). */
export interface DidDocument {
  readonly id?: unknown;
  readonly alsoKnownAs?: unknown;
  readonly service?: unknown;
}

/**
 * Fetches a DID's document and checks that it is the document of that DID.
 *
 * @param did a `did:plc` or `did:web` DID
 * @param deps fetch and the PLC directory
 * @returns the document
 */
export async function resolveDidDocument(did: string, deps: IdentityDeps): Promise<DidDocument> {
  const url = did.startsWith("did:plc:")
    ? new URL(`/${did}`, deps.plcDirectory ?? DEFAULT_PLC_DIRECTORY)
    : new URL("/.well-known/did.json", `https://${decodeURIComponent(did.slice(8))}`);
  const doc = await getJson(url, `fetch the DID document of ${did}`, deps) as DidDocument;
  if (doc.id !== did) {
    throw unresolved(`the DID document at ${url} is not that of ${did}`, "check the DID");
  }
  return doc;
}

/**
 * The PDS origin a DID document names (`#atproto_pds`, type `AtprotoPersonalDataServer`).
 *
 * @param did the DID (for the message)
 * @param doc its document
 * @returns the https origin
 */
export function pdsOfDocument(did: string, doc: DidDocument): string {
  const services = Array.isArray(doc.service) ? doc.service : [];
  const entry = services.find((s: Record<string, unknown>) =>
    (s.id === "#atproto_pds" || s.id === `${did}#atproto_pds`) &&
    s.type === "AtprotoPersonalDataServer"
  ) as { serviceEndpoint?: unknown } | undefined;
  const endpoint = entry?.serviceEndpoint;
  if (typeof endpoint !== "string" || !isHttpsUrl(endpoint)) {
    throw unresolved(`the DID document of ${did} names no https PDS`, "check the account");
  }
  return new URL(endpoint).origin;
}

/**
 * The issuer of the authorization server protecting a PDS (its
 * `/.well-known/oauth-protected-resource` metadata).
 *
 * @param pds the PDS origin
 * @param deps fetch
 * @returns the issuer identifier
 */
export async function authorizationServerOf(pds: string, deps: IdentityDeps): Promise<string> {
  const url = new URL("/.well-known/oauth-protected-resource", pds);
  const body = await getJson(url, `read the OAuth metadata of the PDS ${pds}`, deps) as {
    resource?: unknown;
    authorization_servers?: unknown;
  };
  const issuers = Array.isArray(body.authorization_servers) ? body.authorization_servers : [];
  const issuer = issuers[0];
  if (
    typeof body.resource !== "string" || new URL(body.resource).origin !== pds ||
    typeof issuer !== "string" || !isHttpsUrl(issuer)
  ) {
    throw unresolved(`the PDS ${pds} names no https authorization server for itself`, "");
  }
  return issuer;
}

/**
 * Whether a string is an absolute `https:` URL.
 *
 * @param value the string
 * @returns true for https URLs
 */
export function isHttpsUrl(value: string): boolean {
  return URL.canParse(value) && new URL(value).protocol === "https:";
}

async function getJson(url: URL, what: string, deps: IdentityDeps): Promise<unknown> {
  if (url.protocol !== "https:") throw unresolved(`cannot ${what}: ${url} is not https`, "");
  let response: Response;
  try {
    response = await deps.fetch(url, {
      headers: { accept: "application/json" },
      redirect: "error",
    });
  } catch (err) {
    throw unresolved(`cannot ${what}: ${err instanceof Error ? err.message : err}`, "", err);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw unresolved(`cannot ${what}: HTTP ${response.status}`, "");
  }
  try {
    return await response.json();
  } catch (err) {
    throw unresolved(`cannot ${what}: the answer is not JSON`, "", err);
  }
}

function unresolved(message: string, hint: string, cause?: unknown): DeployError {
  return new DeployError("identity_unresolved", message, {
    hint: hint || "check the identifier and your network, then run the command again",
    ...(cause !== undefined && { cause }),
  });
}
