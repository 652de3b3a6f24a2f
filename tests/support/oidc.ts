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
