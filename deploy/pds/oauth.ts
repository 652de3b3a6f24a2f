/**
 * The AT Protocol OAuth flow of `deploy pds login`, as a confidential client built on
 * `oauth4webapi`: pushed authorization request with PKCE, DPoP-bound tokens (retrying once
 * with the server's nonce), a `private_key_jwt` client assertion signed with the site's client
 * key, `state` and `iss` checks on the callback, and the atproto-specific check that the
 * token's `sub` DID really is an account served by the authorization server that issued it.
 *
 * Why not `@atproto/oauth-client-node`: under Deno with the deploy task's permission flags it
 * fails at import (its `undici` reads `NODE_V8_COVERAGE`, outside `--allow-env`), and its
 * newest release cannot be installed from the registry we can reach (docs/pds.md).
 *
 * @module
 */
import * as oauth from "oauth4webapi";
import { DeployError } from "../errors.ts";
import { generateEcJwk, importKeyPair, type PrivateEcJwk } from "./client_key.ts";
import { CLIENT_SCOPE } from "./client_metadata.ts";
import {
  authorizationServerOf,
  type IdentityDeps,
  isSupportedDid,
  pdsOfDocument,
  resolveDidDocument,
  resolveIdentity,
} from "./identity.ts";
import type { PdsSession } from "./secret.ts";

/** What the flow needs from the outside. */
export interface OAuthDeps extends IdentityDeps {
  /** Milliseconds since the epoch (token expiry). */
  readonly now: () => number;
}

/** The site as an OAuth client. */
export interface OAuthClientIdentity {
  /** `https://<domain>/oauth/client-metadata.json`. */
  readonly clientId: string;
  /** `https://<domain>/oauth/callback`. */
  readonly redirectUri: string;
  /** The client's private key (from the secret). */
  readonly key: PrivateEcJwk;
}

/** A login waiting for the user to approve it in the browser. */
export interface PendingLogin {
  /** Where the user approves the login. */
  readonly authorizationUrl: string;
  readonly state: string;
  readonly codeVerifier: string;
  /** The DPoP key the session will be bound to. */
  readonly dpopKey: PrivateEcJwk;
  readonly issuer: string;
  /** The account the user named. */
  readonly did: string;
  readonly pds: string;
}

/**
 * Resolves the account, pushes the authorization request and returns the URL to approve.
 *
 * @param client the site's client identity
 * @param identifier a handle or DID (`--identifier`)
 * @param handleResolver `pds.handleResolver`
 * @param deps fetch, clock, PLC directory
 * @returns the pending login (keep it until the callback URL comes back)
 * @throws {DeployError} identity_unresolved or oauth_failed
 */
export async function startLogin(
  client: OAuthClientIdentity,
  identifier: string,
  handleResolver: string,
  deps: OAuthDeps,
): Promise<PendingLogin> {
  const identity = await resolveIdentity(identifier, handleResolver, deps);
  const issuer = await authorizationServerOf(identity.pds, deps);
  const as = await discover(issuer, deps);
  const dpopKey = await generateEcJwk(`dpop-${crypto.randomUUID()}`);
  const state = oauth.generateRandomState();
  const codeVerifier = oauth.generateRandomCodeVerifier();
  const params = new URLSearchParams({
    response_type: "code",
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: CLIENT_SCOPE,
    state,
    code_challenge: await oauth.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: "S256",
    login_hint: identity.handle ?? identity.did,
  });
  const parts = await clientParts(client, dpopKey);
  const par = await withNonceRetry(async () =>
    await oauth.processPushedAuthorizationResponse(
      as,
      parts.client,
      await oauth.pushedAuthorizationRequest(as, parts.client, parts.auth, params, {
        DPoP: parts.dpop,
        [oauth.customFetch]: viaFetch(deps),
      }),
    ), "the pushed authorization request");
  const url = new URL(as.authorization_endpoint!);
  url.searchParams.set("client_id", client.clientId);
  url.searchParams.set("request_uri", par.request_uri);
  return {
    authorizationUrl: url.href,
    state,
    codeVerifier,
    dpopKey,
    issuer,
    did: identity.did,
    pds: identity.pds,
  };
}

/**
 * Completes a login from the callback URL the browser landed on: checks `state` and `iss`,
 * exchanges the code, and checks that the token is for the account asked for and that this
 * authorization server really serves that account.
 *
 * @param client the site's client identity
 * @param pending what {@linkcode startLogin} returned
 * @param callbackUrl the full URL of the site's `/oauth/callback` page after approval
 * @param deps fetch, clock, PLC directory
 * @returns the account's DID and the new session
 * @throws {DeployError} oauth_failed
 */
export async function finishLogin(
  client: OAuthClientIdentity,
  pending: PendingLogin,
  callbackUrl: string,
  deps: OAuthDeps,
): Promise<{ did: string; session: PdsSession }> {
  const as = await discover(pending.issuer, deps);
  const parts = await clientParts(client, pending.dpopKey);
  let url: URL;
  try {
    url = new URL(callbackUrl.trim());
  } catch {
    throw failed("the pasted callback is not a URL", "paste the whole address of the page");
  }
  if (url.origin + url.pathname !== client.redirectUri) {
    throw failed(`the pasted URL is not ${client.redirectUri}`, "paste the callback page's URL");
  }
  let params: URLSearchParams;
  try {
    params = oauth.validateAuthResponse(as, parts.client, url, pending.state);
  } catch (err) {
    throw failed(`the authorization was not granted: ${describe(err)}`, "", err);
  }
  const tokens = await withNonceRetry(async () =>
    await oauth.processAuthorizationCodeResponse(
      as,
      parts.client,
      await oauth.authorizationCodeGrantRequest(
        as,
        parts.client,
        parts.auth,
        params,
        client.redirectUri,
        pending.codeVerifier,
        { DPoP: parts.dpop, [oauth.customFetch]: viaFetch(deps) },
      ),
    ), "the code exchange");
  const did = tokens.sub;
  if (typeof did !== "string" || !isSupportedDid(did)) {
    throw failed("the token names no account (no `sub` DID)", "");
  }
  if (did !== pending.did) {
    throw failed(`the token is for ${did}, not for ${pending.did}`, "approve as the same account");
  }
  // atproto: the issuer must be the authority of the account's PDS, not just any server.
  const pds = pdsOfDocument(did, await resolveDidDocument(did, deps));
  if (await authorizationServerOf(pds, deps) !== as.issuer) {
    throw failed(`${as.issuer} does not serve ${did}`, "log in through the account's own PDS");
  }
  return { did, session: sessionOf(tokens, as.issuer, pds, pending.dpopKey, deps) };
}

/**
 * Spends the session's single-use refresh token for a new session. The caller must store the
 * result before using it (the old refresh token is gone).
 *
 * @param client the site's client identity
 * @param session the stored session
 * @param deps fetch, clock
 * @returns the new session (same DPoP key)
 * @throws {DeployError} login_required when the grant is refused (expired or revoked)
 */
export async function refreshSession(
  client: OAuthClientIdentity,
  session: PdsSession,
  deps: OAuthDeps,
): Promise<PdsSession> {
  const as = await discover(session.issuer, deps);
  const parts = await clientParts(client, session.dpopKey);
  try {
    const tokens = await withNonceRetry(async () =>
      await oauth.processRefreshTokenResponse(
        as,
        parts.client,
        await oauth.refreshTokenGrantRequest(as, parts.client, parts.auth, session.refreshToken, {
          DPoP: parts.dpop,
          [oauth.customFetch]: viaFetch(deps),
        }),
      ), "the token refresh");
    return sessionOf(tokens, as.issuer, session.pds, session.dpopKey, deps);
  } catch (err) {
    const cause = err instanceof DeployError ? err.cause : err;
    if (cause instanceof oauth.ResponseBodyError && cause.error === "invalid_grant") {
      throw loginRequired("the stored session has expired or was revoked", err);
    }
    throw err;
  }
}

/**
 * Sends a request to the PDS with the session's access token and a DPoP proof, retrying once
 * with the server's DPoP nonce when it asks for one.
 *
 * @param session the session
 * @param method HTTP method
 * @param url the PDS URL
 * @param body for POST: a JSON value, or a `Blob` sent as it is under its own type
 * @param deps fetch
 * @returns the response (any status; 401 `invalid_token` is thrown as `login_required`-able)
 */
export async function pdsRequest(
  session: PdsSession,
  method: "GET" | "POST",
  url: URL,
  body: unknown,
  deps: OAuthDeps,
): Promise<Response> {
  const pair = await importKeyPair(session.dpopKey);
  const dpop = oauth.DPoP({}, pair);
  const raw = body instanceof Blob ? new Uint8Array(await body.arrayBuffer()) : undefined;
  const send = async () => {
    const headers = new Headers({ accept: "application/json" });
    // A Blob is sent as it is (uploadBlob), under its own type; anything else as JSON.
    if (body instanceof Blob) headers.set("content-type", body.type);
    else if (body !== undefined) headers.set("content-type", "application/json");
    return await oauth.protectedResourceRequest(
      session.accessToken,
      method,
      url,
      headers,
      body === undefined ? null : raw ?? JSON.stringify(body),
      { DPoP: dpop, [oauth.customFetch]: viaFetch(deps) },
    );
  };
  try {
    return await send();
  } catch (err) {
    if (oauth.isDPoPNonceError(err)) return await send();
    throw err;
  }
}

/**
 * Whether a PDS answer says the access token is no good (expired, revoked): refresh and retry.
 *
 * @param err what {@linkcode pdsRequest} threw
 * @returns true for an `invalid_token` challenge
 */
export function isInvalidToken(err: unknown): boolean {
  return err instanceof oauth.WWWAuthenticateChallengeError &&
    err.cause.some((c) => c.parameters.error === "invalid_token");
}

/** oauth4webapi's fetch hook over the injected fetch (tests trust their CA through it). */
function viaFetch(deps: OAuthDeps) {
  return (url: string, options: object) => deps.fetch(url, options as RequestInit);
}

/** The authorization server's metadata, with the atproto profile's requirements checked. */
async function discover(issuer: string, deps: OAuthDeps): Promise<oauth.AuthorizationServer> {
  const url = new URL(issuer);
  let as: oauth.AuthorizationServer;
  try {
    as = await oauth.processDiscoveryResponse(
      url,
      await oauth.discoveryRequest(url, {
        algorithm: "oauth2",
        [oauth.customFetch]: viaFetch(deps),
      }),
    );
  } catch (err) {
    throw new DeployError(
      "identity_unresolved",
      `cannot read the authorization server metadata of ${issuer}: ${describe(err)}`,
      { hint: "check your network and the account's PDS, then run the command again", cause: err },
    );
  }
  const missing = [
    !as.pushed_authorization_request_endpoint && "pushed_authorization_request_endpoint",
    !as.authorization_endpoint && "authorization_endpoint",
    !as.dpop_signing_alg_values_supported?.includes("ES256") && "DPoP with ES256",
    !as.token_endpoint_auth_methods_supported?.includes("private_key_jwt") && "private_key_jwt",
    !as.scopes_supported?.includes("atproto") && "the atproto scope",
    as.authorization_response_iss_parameter_supported !== true && "the iss response parameter",
  ].filter(Boolean);
  if (missing.length > 0) {
    throw new DeployError(
      "identity_unresolved",
      `${issuer} is not an AT Protocol authorization server (missing ${missing.join(", ")})`,
      { hint: "check the account's PDS" },
    );
  }
  return as;
}

async function clientParts(client: OAuthClientIdentity, dpopKey: PrivateEcJwk) {
  const clientPair = await importKeyPair(client.key);
  const oauthClient: oauth.Client = {
    client_id: client.clientId,
    token_endpoint_auth_method: "private_key_jwt",
  };
  return {
    client: oauthClient,
    auth: oauth.PrivateKeyJwt({ key: clientPair.privateKey, kid: client.key.kid }),
    dpop: oauth.DPoP(oauthClient, await importKeyPair(dpopKey)),
  };
}

/** Runs a token-endpoint exchange, once more when the server asks for a DPoP nonce. */
async function withNonceRetry<T>(run: () => Promise<T>, what: string): Promise<T> {
  try {
    try {
      return await run();
    } catch (err) {
      if (oauth.isDPoPNonceError(err)) return await run();
      throw err;
    }
  } catch (err) {
    throw failed(`${what} failed: ${describe(err)}`, "", err);
  }
}

function sessionOf(
  tokens: oauth.TokenEndpointResponse,
  issuer: string,
  pds: string,
  dpopKey: PrivateEcJwk,
  deps: OAuthDeps,
): PdsSession {
  if (tokens.token_type.toLowerCase() !== "dpop") {
    throw failed(`the token is not DPoP-bound (token_type ${tokens.token_type})`, "");
  }
  const scope = tokens.scope ?? "";
  if (!scope.split(" ").includes("atproto")) {
    throw failed(`the token lacks the atproto scope (got "${scope}")`, "");
  }
  if (!tokens.refresh_token) throw failed("the server issued no refresh token", "");
  return {
    issuer,
    pds,
    accessToken: tokens.access_token,
    refreshToken: tokens.refresh_token,
    expiresAt: new Date(deps.now() + (tokens.expires_in ?? 300) * 1000).toISOString(),
    scope,
    dpopKey,
  };
}

/** What went wrong, from the server's error code and description (never a token). */
function describe(err: unknown): string {
  if (err instanceof oauth.ResponseBodyError || err instanceof oauth.AuthorizationResponseError) {
    return err.error_description ? `${err.error}: ${err.error_description}` : err.error;
  }
  return err instanceof Error ? err.message : String(err);
}

function failed(message: string, hint: string, cause?: unknown): DeployError {
  return new DeployError("oauth_failed", message, {
    hint: hint || "run `deploy pds login` again",
    ...(cause !== undefined && { cause }),
  });
}

/**
 * The error for a missing, expired or revoked session.
 *
 * @param why what was found
 * @param cause the underlying failure
 * @returns `login_required`
 */
export function loginRequired(why: string, cause?: unknown): DeployError {
  return new DeployError("login_required", why, {
    hint: "run `deploy pds login --identifier <handle-or-DID>` again",
    ...(cause !== undefined && { cause }),
  });
}
