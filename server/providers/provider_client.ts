import type { Clock, Logger } from "@org/shared";
import type { ProviderConfig } from "../config/schema.ts";
import { invalidGrant, serverError } from "../errors.ts";
import { discoverProvider, type ProviderMetadata } from "./discovery.ts";
import { errors, type JWTPayload, jwtVerify } from "jose";
import {
  ID_TOKEN_CLOCK_SKEW,
  type IdTokenClaims,
  IdTokenInvalid,
  PROVIDER_ALGORITHMS,
  verifyIdToken,
} from "./id_token.ts";
import { JwksCache } from "./jwks_cache.ts";
import { type Fetch, providerFetch, providerJson, tracedProviderFetch } from "./provider_fetch.ts";
import type { Tracing } from "../telemetry/tracing.ts";
import { type ClientSecret, type ClientSecretDeps, loadClientSecret } from "./client_secret.ts";
import { completeFromUserinfo, lacksProfileClaims } from "./userinfo.ts";

/** What a provider's token endpoint returned for a code. */
export interface ProviderTokens {
  readonly id_token: string;
  readonly access_token: string | undefined;
  /** The provider's refresh token, when it issued one (Sign in with Apple does). */
  readonly refresh_token: string | undefined;
}

/** Dependencies of a {@linkcode ProviderClient}. */
export interface ProviderClientDeps {
  readonly fetch: Fetch;
  readonly clock: Clock;
  readonly log: Logger;
  /** Set when tracing is on: every provider call is then a span (`tracedProviderFetch`). */
  readonly tracing?: Tracing | undefined;
}

/**
 * One configured upstream provider: discovery (cached after the first success), code
 * exchange at its token endpoint, and ID-token verification against its cached JWKS.
 */
export class ProviderClient {
  #metadata: Promise<ProviderMetadata> | undefined;
  #jwks: JwksCache | undefined;

  /**
   * @param config the provider's config
   * @param deps fetch, clock and logger
   * @param clientSecret our client secret there (see {@linkcode loadClientSecret})
   */
  constructor(
    readonly config: ProviderConfig,
    private readonly deps: ProviderClientDeps,
    private readonly clientSecret: ClientSecret,
  ) {}

  /** The discovered metadata; a failed discovery is retried on the next call. */
  metadata(): Promise<ProviderMetadata> {
    this.#metadata ??= discoverProvider(this.config, this.deps.fetch).catch((err) => {
      this.#metadata = undefined;
      throw err;
    });
    return this.#metadata;
  }

  /**
   * Exchanges an authorization code at the provider's token endpoint, authenticating with
   * `client_secret_basic` unless the provider only advertises `client_secret_post`.
   *
   * @param code the authorization code
   * @param redirectUri the redirect URI of the original authorization request
   * @param codeVerifier the app's PKCE `code_verifier` (RFC 7636), forwarded when given
   * @returns the provider's ID token (and access token)
   * @throws {OAuthError} `invalid_grant` when the provider refuses the code (or verifier); 502/504
   *   `server_error` for any other provider failure
   */
  async exchangeCode(
    code: string,
    redirectUri: string,
    codeVerifier?: string,
  ): Promise<ProviderTokens> {
    const meta = await this.metadata();
    const { client_id } = this.config;
    // Minted per request for Sign in with Apple (cached until shortly before it expires).
    const client_secret = await this.clientSecret();
    const body = new URLSearchParams({
      ...this.config.additional_params,
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
    });
    if (codeVerifier !== undefined) body.set("code_verifier", codeVerifier);
    const headers = clientAuth(meta, body, client_id, client_secret);
    const res = await providerFetch(this.deps.fetch, meta.token_endpoint, {
      method: "POST",
      headers,
      body,
    }, this.config.timeout);
    const refused = () =>
      invalidGrant(
        codeVerifier === undefined
          ? "The authorization code is invalid or expired"
          : "The authorization code is invalid or expired, or the code_verifier does not match",
      );
    const json = await providerJson(res, "token response").catch((err) => {
      if (res.status === 400) throw refused();
      throw err;
    });
    if (!res.ok) {
      // RFC 6749 §5.2: the provider says the code (or, RFC 7636 §4.6, the verifier) is bad →
      // the caller's grant is bad. A 400 that names no RFC 6749 error at all is read the same
      // way, as a 400 that is not JSON is. Any other refusal (invalid_client, …) is our
      // misconfiguration: a provider error.
      if (res.status === 400 && (json.error === "invalid_grant" || json.error === undefined)) {
        throw refused();
      }
      throw serverError(502, {
        msg: "provider refused the code exchange",
        provider: this.config.name,
        status: res.status,
        error: json.error,
        error_description: json.error_description,
      });
    }
    if (typeof json.id_token !== "string") {
      throw serverError(502, {
        msg: "provider token response has no id_token",
        provider: this.config.name,
      });
    }
    return {
      id_token: json.id_token,
      access_token: typeof json.access_token === "string" ? json.access_token : undefined,
      refresh_token: typeof json.refresh_token === "string" ? json.refresh_token : undefined,
    };
  }

  /**
   * Revokes a refresh token the provider issued us (RFC 7009 form; Sign in with Apple's
   * `/auth/revoke`): `client_id`, `client_secret` (for Apple the minted JWT), `token` and
   * `token_type_hint=refresh_token`, at the `revocation_endpoint` of the provider's discovery
   * document, authenticated as at its token endpoint.
   *
   * A 400 `invalid_grant` (the token is already expired or revoked) counts as done.
   *
   * @param token the provider's refresh token
   * @throws {Error} with a message naming the status (never the token) when the provider
   *   advertises no revocation endpoint or does not answer 2xx; {OAuthError} 502/504 when it
   *   cannot be reached
   */
  async revokeRefreshToken(token: string): Promise<void> {
    const meta = await this.metadata();
    if (meta.revocation_endpoint === undefined) {
      throw new Error("the provider's discovery document has no revocation_endpoint");
    }
    const body = new URLSearchParams({ token, token_type_hint: "refresh_token" });
    const headers = clientAuth(meta, body, this.config.client_id, await this.clientSecret());
    const res = await providerFetch(this.deps.fetch, meta.revocation_endpoint, {
      method: "POST",
      headers,
      body,
    }, this.config.timeout);
    const text = await res.text();
    if (res.ok) return;
    let error: unknown;
    try {
      error = (JSON.parse(text) as { error?: unknown }).error;
    } catch { /* a body that is not JSON names no error */ }
    // The token is already expired or revoked: nothing is left to revoke.
    if (res.status === 400 && error === "invalid_grant") return;
    const named = typeof error === "string" ? ` ${error.slice(0, 64)}` : "";
    throw new Error(`the provider answered HTTP ${res.status}${named}`);
  }

  /**
   * Verifies an ID token from this provider (see {@linkcode verifyIdToken}).
   *
   * @param token the compact JWT
   * @param maxAge oldest acceptable `iat` in seconds (for directly presented ID tokens)
   * @returns the verified claims
   * @throws {IdTokenInvalid} when a check fails; {OAuthError} 502/504 when keys cannot be read
   */
  async verifyIdToken(token: string, maxAge?: number): Promise<IdTokenClaims> {
    const meta = await this.metadata();
    return await verifyIdToken(token, this.#keys(meta).getKey, {
      issuer: meta.issuer,
      clientId: this.config.client_id,
      now: this.deps.clock.now(),
      ...(maxAge === undefined ? {} : { maxAge }),
    });
  }

  /**
   * Completes a code exchange's verified ID token from the provider's UserInfo endpoint when
   * the token lacks the email or a name and the provider advertises the endpoint: a conforming
   * provider returns those claims only there once it issues an access token (OpenID Core
   * §5.4). The ID token's own values win; a response for another `sub` is not used (§5.3.2).
   *
   * @param claims the verified ID-token claims
   * @param accessToken the access token issued with them, if any
   * @returns the claims, completed where UserInfo could
   * @throws {OAuthError} 502/504 `server_error` when the UserInfo request fails
   */
  async withUserinfo(
    claims: IdTokenClaims,
    accessToken: string | undefined,
  ): Promise<IdTokenClaims> {
    const meta = await this.metadata();
    if (!meta.userinfo_endpoint || accessToken === undefined || !lacksProfileClaims(claims)) {
      return claims;
    }
    const res = await providerFetch(this.deps.fetch, meta.userinfo_endpoint, {
      headers: { authorization: `Bearer ${accessToken}`, accept: "application/json" },
    }, this.config.timeout);
    if (!res.ok) {
      // RFC 6750 §3: a refusal's detail is in WWW-Authenticate; the body may be empty.
      await res.body?.cancel();
      throw serverError(502, {
        msg: "provider refused the userinfo request",
        provider: this.config.name,
        status: res.status,
        www_authenticate: res.headers.get("www-authenticate"),
      });
    }
    const completed = completeFromUserinfo(claims, await providerJson(res, "userinfo response"));
    if (completed === undefined) {
      this.deps.log.warn("provider userinfo names another subject; not used", {
        provider: this.config.name,
      });
    }
    return completed ?? claims;
  }

  /**
   * Verifies another JWT the provider signs for us (Sign in with Apple's server-to-server
   * notifications): signature by the provider's JWKS (asymmetric algorithms only), `iss` the
   * provider's issuer, `aud` our client id, `iat` present, at most `maxAge` seconds old and not
   * in the future (60 s skew), `exp` when present.
   *
   * @param token the compact JWT
   * @param maxAge oldest acceptable `iat`, in seconds
   * @returns the verified payload
   * @throws {errors.JOSEError} when a check fails; {OAuthError} 502/504 when keys cannot be read
   */
  async verifySignedJwt(token: string, maxAge: number): Promise<JWTPayload> {
    const meta = await this.metadata();
    const { payload } = await jwtVerify(token, this.#keys(meta).getKey, {
      issuer: meta.issuer,
      audience: this.config.client_id,
      algorithms: PROVIDER_ALGORITHMS,
      currentDate: new Date(this.deps.clock.now()),
      clockTolerance: ID_TOKEN_CLOCK_SKEW,
      requiredClaims: ["iat"],
      maxTokenAge: maxAge,
    });
    if (payload.iat! > this.deps.clock.now() / 1000 + ID_TOKEN_CLOCK_SKEW) {
      throw new errors.JWTClaimValidationFailed("iat is in the future", payload, "iat");
    }
    return payload;
  }

  /** The provider's key set, cached once discovery named it. */
  #keys(meta: ProviderMetadata): JwksCache {
    this.#jwks ??= new JwksCache(meta.jwks_uri, {
      fetch: this.deps.fetch,
      clock: this.deps.clock,
      timeoutSeconds: this.config.timeout,
    });
    return this.#jwks;
  }
}

export { IdTokenInvalid };

/** The providers configured as Sign in with Apple (`[providers.<name>.apple_client_secret]`). */
export function appleProviders(
  providers: ReadonlyMap<string, ProviderClient>,
): ProviderClient[] {
  return [...providers.values()].filter((p) => p.config.client_secret.kind === "apple");
}

/**
 * The request headers authenticating us at the provider, `client_secret_basic` unless it
 * only advertises `client_secret_post` (then the credentials are added to `body`).
 */
function clientAuth(
  meta: ProviderMetadata,
  body: URLSearchParams,
  clientId: string,
  clientSecret: string,
): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/x-www-form-urlencoded",
    accept: "application/json",
  };
  const methods = meta.token_endpoint_auth_methods_supported;
  if (methods.includes("client_secret_post") && !methods.includes("client_secret_basic")) {
    body.set("client_id", clientId);
    body.set("client_secret", clientSecret);
  } else {
    headers.authorization = `Basic ${btoa(`${formEncode(clientId)}:${formEncode(clientSecret)}`)}`;
  }
  return headers;
}

/** RFC 6749 §2.3.1: client id and secret are form-encoded before Basic encoding. */
function formEncode(s: string): string {
  return encodeURIComponent(s).replace(/%20/g, "+");
}

/**
 * The configured providers by name, each with its client secret loaded (Apple keys are read
 * and imported here, once).
 *
 * @param providers the `[providers.*]` config
 * @param deps fetch, clock, logger and key-file reader
 * @returns a map from provider name to client
 * @throws {Error} naming the config key when an Apple key cannot be read or imported
 */
export async function createProviderClients(
  providers: Readonly<Record<string, ProviderConfig>>,
  deps: ProviderClientDeps & Pick<ClientSecretDeps, "readKeyFile">,
): Promise<ReadonlyMap<string, ProviderClient>> {
  const clients = new Map<string, ProviderClient>();
  for (const p of Object.values(providers)) {
    const own = deps.tracing === undefined
      ? deps
      : { ...deps, fetch: tracedProviderFetch(deps.fetch, deps.tracing, p) };
    clients.set(p.name, new ProviderClient(p, own, await loadClientSecret(p, deps)));
  }
  return clients;
}
