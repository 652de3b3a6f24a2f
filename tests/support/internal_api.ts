import * as oauth from "oauth4webapi";
import { type OidcFixture, startOidcProvider } from "./oidc.ts";
import {
  providerToml,
  startTokenServer,
  type TokenServer,
  type TokenServerOptions,
} from "./token_server.ts";

/** A shared secret of the minimum length (32 bytes) for `internal_api.shared_secret`. */
export const SECRET = "s3cret-s3cret-s3cret-s3cret-0123";

/** TOML enabling the internal API with the shared-secret method (plus `extra` lines). */
export function internalToml(extra = ""): string {
  return `[internal_api]\nenabled = true\nauth_methods = ["shared_secret"]\n` +
    `shared_secret = "${SECRET}"\n${extra}`;
}

/**
 * Calls the internal listener: JSON body when given, `Authorization: Bearer <SECRET>` unless
 * `headers` says otherwise.
 *
 * @returns the response (its body unread)
 */
export function adminFetch(
  te: Pick<TokenServer, "internalUrl">,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Response> {
  if (te.internalUrl === undefined) throw new Error("no internal listener");
  const body = options.raw ??
    (options.body === undefined ? undefined : JSON.stringify(options.body));
  return fetch(`${te.internalUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${SECRET}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...options.headers,
    },
    ...(body === undefined ? {} : { body }),
  });
}

/** {@linkcode adminFetch} that expects `status` and returns the parsed JSON body. */
export async function adminJson<T = Record<string, unknown>>(
  te: Pick<TokenServer, "internalUrl">,
  method: string,
  path: string,
  status: number,
  options: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<T> {
  const res = await adminFetch(te, method, path, options);
  const text = await res.text();
  if (res.status !== status) {
    throw new Error(`${method} ${path}: expected ${status}, got ${res.status} ${text}`);
  }
  return JSON.parse(text) as T;
}

const client: oauth.Client = { client_id: "app" };
const insecure = { [oauth.allowInsecureRequests]: true } as const;

/** A token service with one upstream provider, driven by a real OAuth client. */
export interface SignInHarness extends AsyncDisposable {
  readonly te: TokenServer;
  /** Code exchange as upstream subject `sub`: a new session. */
  signIn(sub: string): Promise<Response>;
  /** Code exchange that must succeed. */
  tokens(sub: string): Promise<{ access_token: string; refresh_token: string }>;
  /** A refresh request (`oauth4webapi` `refreshTokenGrantRequest`). */
  refresh(token: string): Promise<Response>;
}

/**
 * Starts an upstream OpenID provider and the token service with it as provider `idp`; the
 * upstream subject of the next code exchange is the `sub` passed to `signIn`.
 */
export async function signInHarness(
  options: Omit<TokenServerOptions, "toml"> & { toml?: string } = {},
): Promise<SignInHarness> {
  const idp: OidcFixture = await startOidcProvider();
  let sub = "";
  idp.server.service.on("beforeTokenSigning", (t: { payload: Record<string, unknown> }) => {
    if (t.payload.aud !== undefined) Object.assign(t.payload, { sub, email: `${sub}@example.com` });
  });
  let te: TokenServer;
  try {
    te = await startTokenServer({
      ...options,
      toml: providerToml("idp", idp.issuer) + (options.toml ?? ""),
    });
  } catch (err) {
    await idp.close();
    throw err;
  }
  const url = new URL(te.issuer);
  const as = await oauth.processDiscoveryResponse(
    url,
    await oauth.discoveryRequest(url, { algorithm: "oidc", ...insecure }),
  );
  const signIn = (s: string) => {
    sub = s;
    return oauth.genericTokenEndpointRequest(
      as,
      client,
      oauth.None(),
      "authorization_code",
      { code: `code-${s}`, provider: "idp", redirect_uri: "https://app.example/cb" },
      insecure,
    );
  };
  const close = async () => {
    await te.close();
    await idp.close();
  };
  return {
    te,
    signIn,
    async tokens(s) {
      const t = await oauth.processGenericTokenEndpointResponse(as, client, await signIn(s));
      return { access_token: t.access_token, refresh_token: t.refresh_token! };
    },
    refresh: (token) => oauth.refreshTokenGrantRequest(as, client, oauth.None(), token, insecure),
    [Symbol.asyncDispose]: close,
  };
}
