/**
 * `oidc-provider` (panva, OpenID Certified) as an upstream identity provider for end-to-end
 * tests: a provider we did not write, run in-process on a free loopback port, whose codes come
 * from its own authorization endpoint and interaction pages (login, then consent).
 *
 * @module
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK } from "jose";
import Provider from "oidc-provider";

/** The client the token service is registered as at the provider. */
export const PEER_CLIENT = {
  client_id: "te-client",
  client_secret: "te-secret",
  redirect_uri: "https://app.example/cb",
} as const;

/** Another registered client (its codes must not be redeemable by the token service). */
export const OTHER_CLIENT = {
  client_id: "other-client",
  client_secret: "other-secret",
  redirect_uri: "https://other.example/cb",
} as const;

/** Options for {@linkcode startOidcProviderPeer}. */
export interface OidcProviderPeerOptions {
  /** Lifetime of an authorization code in seconds (the provider's default: 60). */
  readonly codeTtlSeconds?: number;
}

/** A running `oidc-provider` on loopback. */
export interface OidcProviderPeer extends AsyncDisposable {
  /** Its issuer (`http://127.0.0.1:<port>`); discovery lives under it. */
  readonly issuer: string;
  /** The `kid` the provider signs ID tokens with now. */
  readonly signingKid: string;
  /**
   * The browser leg of a sign-in: `GET /auth` with `params`, the provider's login page
   * submitted as `account`, its consent page submitted, and the redirect back to the app (not
   * followed).
   *
   * @returns the callback URL (query or fragment carry `code`, tokens, or `error`)
   */
  signIn(params: Readonly<Record<string, string>>, account?: string): Promise<URL>;
  /**
   * Rotates the signing key the way an operator of `oidc-provider` does: the provider restarts
   * (same issuer, same port) with a new key first in its key set, the old one still published.
   *
   * @returns the new signing `kid`
   */
  rotateKeys(): Promise<string>;
  /** When the code expires (epoch seconds), as the provider recorded it. */
  codeExpiry(code: string): Promise<number>;
  /** Stops the provider. */
  close(): Promise<void>;
}

/** The slice of `oidc-provider`'s API these tests use (the package ships no types). */
interface ProviderApi {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  AuthorizationCode: { find(code: string): Promise<{ exp: number } | undefined> };
}

/** A private signing JWK with its `kid`. */
async function signingKey(kid: string): Promise<JWK> {
  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  return { ...await exportJWK(privateKey), kid, alg: "RS256", use: "sig" };
}

/**
 * Starts `oidc-provider` on 127.0.0.1 port 0 with two confidential clients
 * ({@linkcode PEER_CLIENT}, {@linkcode OTHER_CLIENT}), the code flow and the implicit
 * `id_token token` response (whose ID token carries `at_hash`), the `claims` request parameter
 * (OpenID Core §5.5), and accounts that exist for any login name: `sub` is the name, `email`
 * `<name>@example.com` (verified), `name` the name capitalised. Its own development interaction
 * pages do the login and consent.
 *
 * @example
 * ```ts
 * await using idp = await startOidcProviderPeer();
 * const callback = await idp.signIn({
 *   response_type: "code",
 *   client_id: PEER_CLIENT.client_id,
 *   redirect_uri: PEER_CLIENT.redirect_uri,
 *   scope: "openid",
 *   state: "st",
 *   code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
 *   code_challenge_method: "S256",
 * });
 * if (callback.searchParams.get("code") === null) throw new Error("signed in, so a code");
 * ```
 */
export async function startOidcProviderPeer(
  options: OidcProviderPeerOptions = {},
): Promise<OidcProviderPeer> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const keys: JWK[] = [await signingKey("k1")];
  let provider = configure(issuer, keys, options);
  let handle = provider.callback();
  server.on("request", (req, res) => handle(req, res));

  const close = () =>
    new Promise<void>((resolve, reject) => {
      server.closeAllConnections();
      server.close((err) => err ? reject(err) : resolve());
    });
  return {
    issuer,
    get signingKid() {
      return String(keys[0]!.kid);
    },
    signIn: (params, account = "alice-1") => signIn(issuer, params, account),
    async rotateKeys() {
      const kid = `k${keys.length + 1}`;
      keys.unshift(await signingKey(kid));
      provider = configure(issuer, keys, options);
      handle = provider.callback();
      return kid;
    },
    async codeExpiry(code) {
      const found = await provider.AuthorizationCode.find(code);
      if (found === undefined) throw new Error("the provider holds no such code");
      return found.exp;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}

function configure(
  issuer: string,
  keys: readonly JWK[],
  options: OidcProviderPeerOptions,
): ProviderApi {
  const client = (c: typeof PEER_CLIENT | typeof OTHER_CLIENT) => ({
    client_id: c.client_id,
    client_secret: c.client_secret,
    redirect_uris: [c.redirect_uri],
    response_types: ["code", "id_token token"],
    grant_types: ["authorization_code", "implicit"],
  });
  return new Provider(issuer, {
    clients: [client(PEER_CLIENT), client(OTHER_CLIENT)],
    jwks: { keys },
    responseTypes: ["code", "id_token token"],
    features: { claimsParameter: { enabled: true } },
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name"] },
    cookies: { keys: ["oidc-provider-peer-cookies"] },
    // Every lifetime set, so the provider does not print a notice per default it falls back to.
    ttl: {
      AuthorizationCode: options.codeTtlSeconds ?? 60,
      AccessToken: 3600,
      IdToken: 3600,
      Grant: 3600,
      Interaction: 600,
      Session: 3600,
    },
    findAccount: (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: () => ({
        sub,
        email: `${sub}@example.com`,
        email_verified: true,
        name: sub.charAt(0).toUpperCase() + sub.slice(1),
      }),
    }),
  }) as ProviderApi;
}

/** Follows the provider's redirects with a cookie jar, submitting its login and consent forms. */
async function signIn(
  issuer: string,
  params: Readonly<Record<string, string>>,
  account: string,
): Promise<URL> {
  const jar = new Map<string, string>();
  const send = async (url: URL, form?: Record<string, string>) => {
    const res = await fetch(url, {
      redirect: "manual",
      headers: {
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
        ...(form ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      ...(form ? { method: "POST", body: new URLSearchParams(form) } : {}),
    });
    const text = await res.text();
    for (const cookie of res.headers.getSetCookie()) {
      const [pair = ""] = cookie.split(";");
      const eq = pair.indexOf("=");
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
    const location = res.headers.get("location");
    if (res.status < 300 || res.status > 399 || location === null) {
      throw new Error(`${url.pathname} answered ${res.status}: ${text.slice(0, 300)}`);
    }
    return new URL(location, url);
  };
  let next = new URL(`${issuer}/auth`);
  for (const [k, v] of Object.entries(params)) next.searchParams.set(k, v);
  next = await send(next);
  // At most a login and a consent page, then the redirect back to the app.
  for (let step = 0; step < 4 && next.origin === issuer; step++) {
    const interaction = next.pathname.match(/^\/interaction\/([^/]+)$/);
    if (interaction === null) {
      next = await send(next);
      continue;
    }
    const page = await (await fetch(next, {
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; ") },
    })).text();
    const prompt = page.match(/name="prompt" value="(login|consent)"/)?.[1];
    const action = page.match(/<form[^>]* action="([^"]+)"/)?.[1];
    if (prompt === undefined || action === undefined) {
      throw new Error(`unexpected interaction page: ${page.slice(0, 300)}`);
    }
    next = await send(
      new URL(action, next),
      prompt === "login" ? { prompt, login: account, password: "any" } : { prompt },
    );
  }
  if (next.origin === issuer) throw new Error(`sign-in did not leave the provider: ${next}`);
  return next;
}
