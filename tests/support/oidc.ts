import { OAuth2Server } from "oauth2-mock-server";

/** A running upstream OpenID provider on loopback. */
export interface OidcFixture extends AsyncDisposable {
  /** The provider's issuer URL (`http://127.0.0.1:<port>`); discovery lives under it. */
  readonly issuer: string;
  /** The underlying mock server: mint ID tokens with chosen claims, hook token requests. */
  readonly server: OAuth2Server;
  /** Stops the provider. */
  close(): Promise<void>;
}

/**
 * Starts `oauth2-mock-server` (a real OpenID provider: discovery, JWKS, token endpoint) on a
 * free loopback port with a fresh signing key.
 *
 * @param alg the ID-token signing algorithm of its key (default `RS256`)
 * @returns the fixture; `await using` stops it
 *
 * @example
 * ```ts
 * await using idp = await startOidcProvider();
 * const idToken = await idp.server.issuer.buildToken({ scopesOrTransform: (_h, p) => { p.sub = "u1"; } });
 * ```
 */
export async function startOidcProvider(alg = "RS256"): Promise<OidcFixture> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate(alg);
  await server.start(0, "127.0.0.1");
  const issuer = server.issuer.url!;
  const close = () => server.stop();
  return { issuer, server, close, [Symbol.asyncDispose]: close };
}

/** What {@linkcode requireS256Pkce} saw at the provider's token endpoint. */
export interface PkceLog {
  /** `code_verifier` of each authorization-code request, `undefined` when absent. */
  readonly verifiers: (string | undefined)[];
}

/**
 * Makes the provider enforce PKCE with S256, as providers that require it do: its
 * `/authorize` issues a code only for a `code_challenge` with `code_challenge_method=S256`
 * (else it redirects with `error=invalid_request`), and its token endpoint refuses a code
 * without `code_verifier` with RFC 6749 `invalid_grant`. The verifier itself is checked by
 * `oauth2-mock-server` (against the challenge stored for the code; a code is good once).
 *
 * @param idp the provider fixture
 * @returns the verifiers its token endpoint received
 */
export function requireS256Pkce(idp: OidcFixture): PkceLog {
  const log: PkceLog = { verifiers: [] };
  idp.server.service.on(
    "beforeAuthorizeRedirect",
    (redirect: { url: URL }, req: { query: Record<string, unknown> }) => {
      if (req.query.code_challenge_method === "S256" && req.query.code_challenge) return;
      redirect.url.searchParams.delete("code");
      redirect.url.searchParams.set("error", "invalid_request");
      redirect.url.searchParams.set("error_description", "PKCE with S256 is required");
    },
  );
  idp.server.service.on(
    "beforeResponse",
    (res: { body: unknown; statusCode: number }, req: { body: Record<string, unknown> }) => {
      if (req.body.grant_type !== "authorization_code") return;
      const verifier = req.body.code_verifier;
      log.verifiers.push(typeof verifier === "string" ? verifier : undefined);
      if (typeof verifier !== "string") {
        res.statusCode = 400;
        res.body = { error: "invalid_grant", error_description: "code_verifier is required" };
      }
    },
  );
  return log;
}

/**
 * Runs the browser leg of an authorization-code flow at the provider: `GET /authorize` with
 * `params`, and the redirect back to the app (not followed).
 *
 * @param idp the provider fixture
 * @param params the authorization request's query parameters
 * @returns the callback URL the provider redirected to (with `code`, or `error`)
 */
export async function authorize(idp: OidcFixture, params: Record<string, string>): Promise<URL> {
  const url = new URL(`${idp.issuer}/authorize`);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const res = await fetch(url, { redirect: "manual" });
  await res.body?.cancel();
  const location = res.headers.get("location");
  if (res.status !== 302 || location === null) {
    throw new Error(`authorize answered ${res.status} without a redirect`);
  }
  return new URL(location);
}
