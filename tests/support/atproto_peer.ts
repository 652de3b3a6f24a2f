/**
 * A loopback AT Protocol peer for tests: handle resolver, PLC directory and `did:web` host,
 * PDS (record CRUD) and its OAuth authorization server, on one HTTPS origin signed by a test CA.
 *
 * Written for the tests because the reference PDS cannot run here (docs/pds.md says why). It
 * checks everything for real, as a production server would: the client metadata fetched from
 * the `client_id` URL and its `jwks_uri`; every `private_key_jwt` client assertion (signature,
 * `iss`/`sub`/`aud`, expiry, single-use `jti`); every DPoP proof (signature by the embedded
 * key, `typ`, `htm`, `htu`, `iat`, single-use `jti`, the server nonce, `ath` at the PDS, the
 * key the tokens are bound to); PAR-only authorization requests with PKCE S256; single-use
 * codes and single-use, rotating refresh tokens (reuse revokes the session).
 *
 * The consent screen is the one step a person performs: `authorize(url)` plays the browser
 * and returns the callback URL the user would paste.
 *
 * @module
 */
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  decodeProtectedHeader,
  EmbeddedJWK,
  type JWK,
  jwtVerify,
} from "jose";
import { createHash } from "node:crypto";
import { blobCid, recordCid } from "../../deploy/pds/cid.ts";
import type { TestCa } from "./test_ca.ts";

/** A record held by the peer's repository. */
export interface PeerRecord {
  readonly uri: string;
  readonly cid: string;
  readonly value: Record<string, unknown>;
}

/** A reply on the peer's AppView (someone else's post in the thread of an announcement). */
export interface PeerReply {
  readonly author: { did: string; handle: string; displayName?: string; avatar?: string };
  readonly text: string;
  readonly facets?: unknown[];
  readonly likeCount?: number;
  /** ISO 8601; default now. */
  readonly createdAt?: string;
}

/**
 * The peer's AppView (`app.bsky.feed.getPostThread`, unauthenticated, as the public AppView):
 * the account's `app.bsky.feed.post` records are thread roots; replies are added by the test.
 */
export interface PeerAppView {
  /** Adds a reply to a post (an announcement or another reply); returns its AT-URI. */
  reply(parent: string, reply: PeerReply): string;
  /** The post was deleted: it shows as `notFoundPost` in its thread. */
  remove(uri: string): void;
  /** The post's author blocks the viewer (or is blocked): it shows as `blockedPost`. */
  block(uri: string): void;
  /** While true, thread requests get no answer (set it back to false before stopping). */
  hang: boolean;
  /** How many thread requests were answered or hung. */
  readonly threadRequests: number;
}

/** Options of {@linkcode startAtprotoPeer}. */
export interface AtprotoPeerOptions {
  /** The account's handle (default `alice.test`). */
  readonly handle?: string;
  /** `did:plc` (default) or `did:web` on the peer's own origin. */
  readonly didMethod?: "plc" | "web";
  /** Access-token lifetime in seconds (default 3600). */
  readonly accessTokenSeconds?: number;
  /** Page size of `listRecords` (default: the `limit` asked for). */
  readonly pageSize?: number;
  /** How the peer fetches client documents (default the CA's fetch; see `fetchMapped`). */
  readonly fetch?: typeof fetch;
}

/** The running peer. */
export interface AtprotoPeer extends AsyncDisposable {
  /** `https://localhost:<port>`: resolver, PLC directory, PDS and issuer. */
  readonly origin: string;
  readonly did: string;
  readonly handle: string;
  /** Records by collection, then by rkey. */
  readonly records: Map<string, Map<string, PeerRecord>>;
  /** Every XRPC and OAuth request, as `<METHOD> <path>` (for asserting what was written). */
  readonly requests: string[];
  /** Protocol violations the peer refused, with the reason (a passing test leaves none). */
  readonly refusals: string[];
  /**
   * Plays the user in the browser: opens the authorization URL and approves (or denies) as
   * the peer's account; returns the callback URL the browser is sent to.
   */
  authorize(url: string, decision?: "approve" | "deny"): Promise<string>;
  /** Makes every access token issued so far expire now (the PDS answers `invalid_token`). */
  expireAccessTokens(): void;
  /** Revokes every session (refresh answers `invalid_grant`). */
  revokeAll(): void;
  /** Replaces the DPoP nonce (clients must pick up the new one). */
  rotateNonce(): void;
  /** How many refresh grants succeeded. */
  readonly refreshes: number;
  /** Uploaded blobs by CID. */
  readonly blobs: Map<string, { mimeType: string; bytes: Uint8Array }>;
  readonly appview: PeerAppView;
}

interface ParRequest {
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string;
  codeChallenge: string;
  jkt: string;
  loginHint: string;
  expiresAt: number;
}

interface Grant {
  clientId: string;
  redirectUri: string;
  scope: string;
  codeChallenge: string;
  jkt: string;
}

interface Session {
  clientId: string;
  jkt: string;
  scope: string;
  refreshToken: string;
  revoked: boolean;
}

interface AccessToken {
  session: Session;
  expiresAt: number;
}

/**
 * A record as a PDS answers it: stored as DAG-CBOR, whose map keys are sorted shortest first,
 * then bytewise, so the JSON it gives back has that key order, not the writer's.
 */
function cborKeyOrder(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(cborKeyOrder);
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value).sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  return Object.fromEntries(
    keys.map((k) => [k, cborKeyOrder((value as Record<string, unknown>)[k])]),
  );
}

/** The reference PDS's default `uploadBlob` limit (5 MB). */
const BLOB_UPLOAD_LIMIT = 5_000_000;

interface BlobRef {
  ref: { $link: string };
  mimeType: string;
  size: number;
}

interface StoredReply extends PeerReply {
  readonly uri: string;
  readonly cid: string;
  readonly parent: string;
  readonly createdAt: string;
  readonly likeCount: number;
  state: "ok" | "deleted" | "blocked";
}

class Refused extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
  }
}

const b64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes)).replaceAll("+", "-")
    .replaceAll("/", "_").replace(/=+$/, "");
const random = () => b64url(crypto.getRandomValues(new Uint8Array(24)));
const sha256b64 = (text: string) => createHash("sha256").update(text).digest("base64url");

/**
 * Starts the peer on a free loopback port, serving HTTPS with the test CA's certificate.
 *
 * @param ca the test CA (its `fetch` is how the peer fetches client documents)
 * @param options account and token settings
 * @returns the peer; `await using` stops it
 */
export function startAtprotoPeer(ca: TestCa, options: AtprotoPeerOptions = {}): AtprotoPeer {
  const handle = options.handle ?? "alice.test";
  const records = new Map<string, Map<string, PeerRecord>>();
  const requests: string[] = [];
  const refusals: string[] = [];
  const pars = new Map<string, ParRequest>();
  const codes = new Map<string, Grant>();
  const sessions = new Map<string, Session>(); // by current refresh token
  const spentRefresh = new Map<string, Session>();
  const accessTokens = new Map<string, AccessToken>();
  const seenJti = new Set<string>();
  const blobs = new Map<string, { mimeType: string; bytes: Uint8Array }>();
  const replies = new Map<string, StoredReply>();
  let threadRequests = 0;
  let hang = false;
  const hung: (() => void)[] = [];
  let nonce = random();
  let refreshes = 0;
  let origin = "";
  let did = "";

  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, cert: ca.certPem, key: ca.keyPem, onListen() {} },
    async (req) => {
      const url = new URL(req.url);
      requests.push(`${req.method} ${url.pathname}`);
      try {
        return await route(req, url);
      } catch (err) {
        if (!(err instanceof Refused)) throw err;
        refusals.push(`${url.pathname}: ${err.error}: ${err.message}`);
        const headers = { "dpop-nonce": nonce, ...err.headers };
        return url.pathname.startsWith("/xrpc/")
          ? Response.json({ error: err.error, message: err.message }, {
            status: err.status,
            headers,
          })
          : Response.json({ error: err.error, error_description: err.message }, {
            status: err.status,
            headers,
          });
      }
    },
  );
  origin = `https://localhost:${server.addr.port}`;
  did = options.didMethod === "web"
    ? `did:web:localhost%3A${server.addr.port}`
    : `did:plc:${
      createHash("sha256").update(origin).digest("hex").replace(/[^a-z2-7]/g, "")
        .padEnd(24, "a").slice(0, 24)
    }`;

  const didDocument = () => ({
    "@context": ["https://www.w3.org/ns/did/v1"],
    id: did,
    alsoKnownAs: [`at://${handle}`],
    service: [{ id: "#atproto_pds", type: "AtprotoPersonalDataServer", serviceEndpoint: origin }],
  });

  const asMetadata = () => ({
    issuer: origin,
    authorization_endpoint: `${origin}/oauth/authorize`,
    token_endpoint: `${origin}/oauth/token`,
    pushed_authorization_request_endpoint: `${origin}/oauth/par`,
    require_pushed_authorization_requests: true,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none", "private_key_jwt"],
    token_endpoint_auth_signing_alg_values_supported: ["ES256"],
    dpop_signing_alg_values_supported: ["ES256"],
    scopes_supported: ["atproto", "transition:generic"],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  });

  async function route(req: Request, url: URL): Promise<Response> {
    const path = url.pathname;
    if (req.method === "GET") {
      if (path === "/xrpc/com.atproto.identity.resolveHandle") {
        if (url.searchParams.get("handle") !== handle) {
          throw new Refused(400, "InvalidRequest", "Unable to resolve handle");
        }
        return Response.json({ did });
      }
      if (path === `/${did}` && did.startsWith("did:plc:")) return Response.json(didDocument());
      if (path === "/.well-known/did.json" && did.startsWith("did:web:")) {
        return Response.json(didDocument());
      }
      if (path === "/.well-known/oauth-protected-resource") {
        return Response.json({ resource: origin, authorization_servers: [origin] });
      }
      if (path === "/.well-known/oauth-authorization-server") return Response.json(asMetadata());
    }
    if (req.method === "POST" && path === "/oauth/par") return await par(req);
    if (req.method === "POST" && path === "/oauth/token") return await token(req);
    if (req.method === "GET" && path === "/xrpc/app.bsky.feed.getPostThread") {
      return await getPostThread(url);
    }
    if (path.startsWith("/xrpc/com.atproto.repo.")) return await xrpc(req, url);
    return new Response("not found", { status: 404 });
  }

  /** Verifies a DPoP proof; returns the key's thumbprint. */
  async function verifyDpop(req: Request, htu: string, accessToken?: string): Promise<string> {
    const proof = req.headers.get("dpop");
    if (!proof) throw new Refused(400, "invalid_dpop_proof", "DPoP proof required");
    let payload: Record<string, unknown>;
    let jwk: JWK;
    try {
      const header = decodeProtectedHeader(proof);
      if (header.typ !== "dpop+jwt" || header.alg !== "ES256" || !header.jwk) {
        throw new Error("bad header");
      }
      if ("d" in header.jwk) throw new Error("private key in header");
      jwk = header.jwk;
      payload = (await jwtVerify(proof, EmbeddedJWK, { typ: "dpop+jwt", algorithms: ["ES256"] }))
        .payload;
    } catch (err) {
      throw new Refused(400, "invalid_dpop_proof", `DPoP proof rejected: ${err}`);
    }
    const iat = payload.iat;
    if (
      payload.htm !== req.method || payload.htu !== htu || typeof iat !== "number" ||
      Math.abs(Date.now() / 1000 - iat) > 60 || typeof payload.jti !== "string"
    ) {
      throw new Refused(400, "invalid_dpop_proof", "DPoP proof htm/htu/iat/jti mismatch");
    }
    if (payload.nonce !== nonce) {
      // The authorization server answers 400 with a JSON error; the PDS a 401 challenge.
      if (accessToken === undefined) {
        throw new Refused(
          400,
          "use_dpop_nonce",
          "Authorization server requires nonce in DPoP proof",
        );
      }
      throw new Refused(401, "use_dpop_nonce", "Resource server requires nonce in DPoP proof", {
        "www-authenticate": `DPoP error="use_dpop_nonce", error_description="nonce required"`,
      });
    }
    if (seenJti.has(payload.jti)) throw new Refused(400, "invalid_dpop_proof", "DPoP jti replayed");
    seenJti.add(payload.jti);
    if (accessToken !== undefined && payload.ath !== sha256b64(accessToken)) {
      throw new Refused(401, "invalid_dpop_proof", "DPoP ath does not match the access token");
    }
    return await calculateJwkThumbprint(jwk);
  }

  /** Fetches the client's metadata from its client_id URL and verifies its assertion. */
  async function authenticateClient(form: URLSearchParams): Promise<Record<string, unknown>> {
    const clientId = form.get("client_id") ?? "";
    if (
      form.get("client_assertion_type") !==
        "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    ) throw new Refused(400, "invalid_client", "client assertion required");
    const metadata = await fetchJson(clientId);
    if (metadata.client_id !== clientId) {
      throw new Refused(400, "invalid_client", "client_id of the metadata differs from its URL");
    }
    if (
      metadata.token_endpoint_auth_method !== "private_key_jwt" ||
      metadata.dpop_bound_access_tokens !== true || typeof metadata.jwks_uri !== "string"
    ) throw new Refused(400, "invalid_client_metadata", "not a DPoP private_key_jwt client");
    const jwks = await fetchJson(metadata.jwks_uri);
    try {
      const { payload } = await jwtVerify(
        form.get("client_assertion") ?? "",
        createLocalJWKSet(jwks as unknown as { keys: JWK[] }),
        { issuer: clientId, subject: clientId, audience: origin, algorithms: ["ES256"] },
      );
      if (typeof payload.jti !== "string" || seenJti.has(payload.jti) || !payload.exp) {
        throw new Error("jti missing or replayed, or no exp");
      }
      seenJti.add(payload.jti);
    } catch (err) {
      throw new Refused(400, "invalid_client", `client assertion rejected: ${err}`);
    }
    return metadata;
  }

  async function fetchJson(target: string): Promise<Record<string, unknown>> {
    let response: Response;
    try {
      response = await (options.fetch ?? ca.fetch)(target, { redirect: "error" });
    } catch (err) {
      throw new Refused(400, "invalid_client", `cannot fetch ${target}: ${err}`);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new Refused(400, "invalid_client", `${target}: HTTP ${response.status}`);
    }
    return await response.json();
  }

  async function par(req: Request): Promise<Response> {
    const form = new URLSearchParams(await req.text());
    const jkt = await verifyDpop(req, `${origin}/oauth/par`);
    const metadata = await authenticateClient(form);
    const redirectUri = form.get("redirect_uri") ?? "";
    const scope = form.get("scope") ?? "";
    const allowed = String(metadata.scope ?? "").split(" ");
    if (!(metadata.redirect_uris as string[]).includes(redirectUri)) {
      throw new Refused(400, "invalid_request", "redirect_uri is not registered");
    }
    if (
      !scope.split(" ").includes("atproto") || scope.split(" ").some((s) => !allowed.includes(s))
    ) {
      throw new Refused(400, "invalid_scope", "scope must include atproto and be registered");
    }
    if (form.get("response_type") !== "code" || form.get("code_challenge_method") !== "S256") {
      throw new Refused(400, "invalid_request", "code flow with PKCE S256 required");
    }
    const requestUri = `urn:ietf:params:oauth:request_uri:${random()}`;
    pars.set(requestUri, {
      clientId: form.get("client_id")!,
      redirectUri,
      scope,
      state: form.get("state") ?? "",
      codeChallenge: form.get("code_challenge") ?? "",
      jkt,
      loginHint: form.get("login_hint") ?? "",
      expiresAt: Date.now() + 60_000,
    });
    return Response.json({ request_uri: requestUri, expires_in: 60 }, {
      status: 201,
      headers: { "dpop-nonce": nonce },
    });
  }

  async function token(req: Request): Promise<Response> {
    const form = new URLSearchParams(await req.text());
    const jkt = await verifyDpop(req, `${origin}/oauth/token`);
    await authenticateClient(form);
    const clientId = form.get("client_id")!;
    let session: Session;
    if (form.get("grant_type") === "authorization_code") {
      const code = form.get("code") ?? "";
      const grant = codes.get(code);
      codes.delete(code); // single use, whatever happens next
      if (!grant || grant.clientId !== clientId) {
        throw new Refused(400, "invalid_grant", "unknown or used code");
      }
      if (grant.redirectUri !== form.get("redirect_uri")) {
        throw new Refused(400, "invalid_grant", "redirect_uri mismatch");
      }
      if (sha256b64(form.get("code_verifier") ?? "") !== grant.codeChallenge) {
        throw new Refused(400, "invalid_grant", "PKCE verification failed");
      }
      if (grant.jkt !== jkt) throw new Refused(400, "invalid_dpop_proof", "DPoP key changed");
      session = { clientId, jkt, scope: grant.scope, refreshToken: random(), revoked: false };
    } else if (form.get("grant_type") === "refresh_token") {
      const presented = form.get("refresh_token") ?? "";
      const reused = spentRefresh.get(presented);
      if (reused) {
        reused.revoked = true; // a replayed refresh token means theft: end the session
        throw new Refused(400, "invalid_grant", "refresh token replayed");
      }
      const current = sessions.get(presented);
      if (!current || current.revoked || current.clientId !== clientId) {
        throw new Refused(400, "invalid_grant", "unknown or revoked refresh token");
      }
      if (current.jkt !== jkt) throw new Refused(400, "invalid_dpop_proof", "DPoP key changed");
      sessions.delete(presented);
      spentRefresh.set(presented, current);
      current.refreshToken = random();
      session = current;
      refreshes += 1;
    } else throw new Refused(400, "unsupported_grant_type", "unsupported grant_type");
    sessions.set(session.refreshToken, session);
    const accessToken = random();
    const lifetime = options.accessTokenSeconds ?? 3600;
    accessTokens.set(accessToken, { session, expiresAt: Date.now() + lifetime * 1000 });
    return Response.json({
      access_token: accessToken,
      token_type: "DPoP",
      expires_in: lifetime,
      refresh_token: session.refreshToken,
      scope: session.scope,
      sub: did,
    }, { headers: { "dpop-nonce": nonce, "cache-control": "no-store" } });
  }

  async function xrpc(req: Request, url: URL): Promise<Response> {
    const auth = req.headers.get("authorization") ?? "";
    const [scheme, presented = ""] = auth.split(" ");
    if (scheme !== "DPoP") {
      throw new Refused(401, "invalid_token", "DPoP authorization required", {
        "www-authenticate": `DPoP error="invalid_token"`,
      });
    }
    const jkt = await verifyDpop(req, origin + url.pathname, presented);
    const access = accessTokens.get(presented);
    if (!access || access.expiresAt <= Date.now() || access.session.revoked) {
      throw new Refused(401, "invalid_token", "token expired or revoked", {
        "www-authenticate": `DPoP error="invalid_token", error_description="expired"`,
      });
    }
    if (access.session.jkt !== jkt) {
      throw new Refused(401, "invalid_token", "DPoP key does not match the token", {
        "www-authenticate": `DPoP error="invalid_token"`,
      });
    }
    const method = url.pathname.slice("/xrpc/".length);
    if (method === "com.atproto.repo.uploadBlob" && req.method === "POST") {
      const bytes = new Uint8Array(await req.arrayBuffer());
      const mimeType = req.headers.get("content-type") ?? "application/octet-stream";
      if (bytes.length > BLOB_UPLOAD_LIMIT) {
        throw new Refused(400, "BlobTooLarge", "This file is too large");
      }
      const cid = await blobCid(bytes);
      blobs.set(cid, { mimeType, bytes });
      return Response.json({
        blob: { $type: "blob", ref: { $link: cid }, mimeType, size: bytes.length },
      }, { headers: { "dpop-nonce": nonce } });
    }
    const input: Record<string, unknown> = req.method === "POST"
      ? await req.json()
      : Object.fromEntries(url.searchParams);
    if (input.repo !== did) throw new Refused(400, "InvalidRequest", "repo is not the token's");
    const collection = String(input.collection ?? "");
    const store = records.get(collection) ?? new Map<string, PeerRecord>();
    records.set(collection, store);
    const headers = { "dpop-nonce": nonce };
    if (method === "com.atproto.repo.getRecord" && req.method === "GET") {
      const found = store.get(String(input.rkey));
      if (!found) throw new Refused(400, "RecordNotFound", `Could not locate record`);
      return Response.json(found, { headers });
    }
    if (method === "com.atproto.repo.listRecords" && req.method === "GET") {
      const limit = Math.min(Number(input.limit ?? 50), options.pageSize ?? 100);
      const keys = [...store.keys()].sort().filter((k) =>
        !input.cursor || k > String(input.cursor)
      );
      const page = keys.slice(0, limit);
      return Response.json({
        records: page.map((k) => store.get(k)),
        ...(keys.length > limit && { cursor: page.at(-1) }),
      }, { headers });
    }
    if (method === "com.atproto.repo.putRecord" && req.method === "POST") {
      const rkey = String(input.rkey);
      const existing = store.get(rkey);
      if (input.swapRecord !== undefined && existing?.cid !== input.swapRecord) {
        throw new Refused(400, "InvalidSwap", "Record was at another version");
      }
      const record = await prepare(collection, rkey, input.record);
      store.set(rkey, record);
      return Response.json({ uri: record.uri, cid: record.cid }, { headers });
    }
    if (method === "com.atproto.repo.applyWrites" && req.method === "POST") {
      // All or nothing: every write is checked against the repository before any is applied.
      const writes = (input.writes ?? []) as Record<string, unknown>[];
      const applied: { collection: string; rkey: string; record?: PeerRecord }[] = [];
      const results = [];
      for (const write of writes) {
        const c = String(write.collection);
        const rkey = String(write.rkey);
        const exists = records.get(c)?.has(rkey) ||
          applied.some((a) => a.collection === c && a.rkey === rkey && a.record);
        const kind = String(write.$type).split("#")[1];
        if (kind === "create" && exists) {
          throw new Refused(400, "InvalidRequest", `Record already exists at ${c}/${rkey}`);
        }
        if ((kind === "update" || kind === "delete") && !exists) {
          throw new Refused(400, "InvalidRequest", `Could not find record ${c}/${rkey}`);
        }
        if (kind === "delete") {
          applied.push({ collection: c, rkey });
          results.push({ $type: "com.atproto.repo.applyWrites#deleteResult" });
        } else if (kind === "create" || kind === "update") {
          const record = await prepare(c, rkey, write.value);
          applied.push({ collection: c, rkey, record });
          results.push({
            $type: `com.atproto.repo.applyWrites#${kind}Result`,
            uri: record.uri,
            cid: record.cid,
          });
        } else throw new Refused(400, "InvalidRequest", `unknown write ${String(write.$type)}`);
      }
      for (const a of applied) {
        const target = records.get(a.collection) ?? new Map<string, PeerRecord>();
        records.set(a.collection, target);
        if (a.record) target.set(a.rkey, a.record);
        else target.delete(a.rkey);
      }
      return Response.json({ results }, { headers });
    }
    throw new Refused(400, "MethodNotImplemented", `${method} is not served`);
  }

  /**
   * A record as the PDS stores it, refused as the reference PDS refuses: `$type` must be the
   * collection, blobs must have been uploaded and fit the lexicon, and an `app.bsky.feed.post`
   * must respect its text limits and facet ranges.
   */
  async function prepare(collection: string, rkey: string, raw: unknown): Promise<PeerRecord> {
    const value = raw as Record<string, unknown>;
    if (value?.$type !== collection) {
      throw new Refused(400, "InvalidRecord", "record $type must equal the collection");
    }
    const thumbs = collection === "app.bsky.feed.post"
      ? [(value.embed as { external?: { thumb?: unknown } })?.external?.thumb]
      : [value.coverImage];
    for (const blob of thumbs.filter((b) => b !== undefined) as BlobRef[]) {
      const held = blobs.get(blob?.ref?.$link);
      if (!held) throw new Refused(400, "InvalidRequest", "Could not find blob");
      if (blob.size !== held.bytes.length || blob.mimeType !== held.mimeType) {
        throw new Refused(400, "InvalidRecord", "blob ref does not match the upload");
      }
      if (blob.size > 1_000_000 || !blob.mimeType.startsWith("image/")) {
        throw new Refused(400, "InvalidRecord", "blob too big or not an image");
      }
    }
    if (collection === "app.bsky.feed.post") checkPost(value);
    return {
      uri: `at://${did}/${collection}/${rkey}`,
      cid: await recordCid(value),
      value: cborKeyOrder(value) as Record<string, unknown>,
    };
  }

  function checkPost(value: Record<string, unknown>): void {
    const text = value.text;
    const size = typeof text === "string" ? new TextEncoder().encode(text).length : -1;
    const graphemes = typeof text === "string"
      ? [...new Intl.Segmenter(undefined, { granularity: "grapheme" }).segment(text)].length
      : -1;
    if (size < 0 || size > 3000 || graphemes > 300) {
      throw new Refused(400, "InvalidRecord", "Record/text must not be longer than 300 graphemes");
    }
    if (Number.isNaN(Date.parse(String(value.createdAt)))) {
      throw new Refused(400, "InvalidRecord", "Record/createdAt must be an valid atproto datetime");
    }
    for (
      const facet of (value.facets ?? []) as { index: { byteStart: number; byteEnd: number } }[]
    ) {
      const { byteStart, byteEnd } = facet.index;
      if (!(0 <= byteStart && byteStart < byteEnd && byteEnd <= size)) {
        throw new Refused(400, "InvalidRecord", "facet index outside the text");
      }
    }
  }

  function threadOf(uri: string): Record<string, unknown> {
    const reply = replies.get(uri);
    if (reply?.state === "deleted") {
      return { $type: "app.bsky.feed.defs#notFoundPost", uri, notFound: true };
    }
    if (reply?.state === "blocked") {
      return {
        $type: "app.bsky.feed.defs#blockedPost",
        uri,
        blocked: true,
        author: { did: reply.author.did, viewer: { blockedBy: true } },
      };
    }
    const own = records.get("app.bsky.feed.post")?.get(uri.slice(uri.lastIndexOf("/") + 1));
    const record = reply
      ? {
        $type: "app.bsky.feed.post",
        text: reply.text,
        ...(reply.facets && { facets: reply.facets }),
        createdAt: reply.createdAt,
      }
      : own!.value;
    const children = [...replies.values()].filter((r) => r.parent === uri);
    return {
      $type: "app.bsky.feed.defs#threadViewPost",
      post: {
        uri,
        cid: reply?.cid ?? own!.cid,
        author: reply?.author ?? { did, handle },
        record,
        replyCount: children.length,
        repostCount: 0,
        likeCount: reply?.likeCount ?? 0,
        quoteCount: 0,
        indexedAt: reply?.createdAt ?? new Date().toISOString(),
        labels: [],
      },
      replies: children.map((c) => threadOf(c.uri)),
    };
  }

  async function getPostThread(url: URL): Promise<Response> {
    threadRequests++;
    if (hang) {
      // No answer until the test lets go: the client's own timeout has to give up first.
      await new Promise<void>((resolve) => hung.push(resolve));
      return new Response(null, { status: 503 });
    }
    const uri = url.searchParams.get("uri") ?? "";
    const own = uri.startsWith(`at://${did}/app.bsky.feed.post/`) &&
      records.get("app.bsky.feed.post")?.has(uri.slice(uri.lastIndexOf("/") + 1));
    const reply = replies.get(uri);
    if ((!own && !reply) || reply?.state === "deleted") {
      return Response.json({ error: "NotFound", message: `Post not found: ${uri}` }, {
        status: 400,
      });
    }
    return Response.json({ thread: threadOf(uri) });
  }

  const appview: PeerAppView = {
    get hang() {
      return hang;
    },
    set hang(value: boolean) {
      hang = value;
      if (!value) hung.splice(0).forEach((resolve) => resolve());
    },
    get threadRequests() {
      return threadRequests;
    },
    reply(parent, reply) {
      const uri = `at://${reply.author.did}/app.bsky.feed.post/${random().slice(0, 13)}`;
      replies.set(uri, {
        ...reply,
        uri,
        cid: `bafyrei${createHash("sha256").update(uri).digest("hex").slice(0, 52)}`,
        parent,
        createdAt: reply.createdAt ?? new Date().toISOString(),
        likeCount: reply.likeCount ?? 0,
        state: "ok",
      });
      return uri;
    },
    remove(uri) {
      const reply = replies.get(uri);
      if (reply) reply.state = "deleted";
      else records.get("app.bsky.feed.post")?.delete(uri.slice(uri.lastIndexOf("/") + 1));
    },
    block(uri) {
      replies.get(uri)!.state = "blocked";
    },
  };

  return {
    origin,
    did,
    handle,
    records,
    requests,
    refusals,
    blobs,
    appview,
    get refreshes() {
      return refreshes;
    },
    async authorize(target, decision = "approve") {
      const url = new URL(target);
      if (url.origin + url.pathname !== `${origin}/oauth/authorize`) {
        throw new Error(`not this peer's authorization endpoint: ${target}`);
      }
      const requestUri = url.searchParams.get("request_uri") ?? "";
      const request = pars.get(requestUri);
      pars.delete(requestUri);
      if (!request || request.expiresAt < Date.now()) throw new Error("unknown request_uri");
      if (request.clientId !== url.searchParams.get("client_id")) throw new Error("client_id");
      const back = new URL(request.redirectUri);
      back.searchParams.set("state", request.state);
      back.searchParams.set("iss", origin);
      if (decision === "deny") {
        back.searchParams.set("error", "access_denied");
        back.searchParams.set("error_description", "The user denied the request");
      } else {
        const code = random();
        codes.set(code, {
          clientId: request.clientId,
          redirectUri: request.redirectUri,
          scope: request.scope,
          codeChallenge: request.codeChallenge,
          jkt: request.jkt,
        });
        back.searchParams.set("code", code);
      }
      await Promise.resolve();
      return back.href;
    },
    expireAccessTokens() {
      for (const token of accessTokens.values()) token.expiresAt = 0;
    },
    revokeAll() {
      for (const session of sessions.values()) session.revoked = true;
    },
    rotateNonce() {
      nonce = random();
    },
    async [Symbol.asyncDispose]() {
      appview.hang = false; // a hung thread request would hold the shutdown
      await server.shutdown();
    },
  };
}
