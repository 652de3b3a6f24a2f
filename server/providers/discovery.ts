import type { ProviderConfig } from "../config/schema.ts";
import { isAllowedIssuerUrl } from "../config/resolve.ts";
import { serverError } from "../errors.ts";
import { type Fetch, providerFetch, providerJson } from "./provider_fetch.ts";

/** The parts of a provider's discovery document the service uses. */
export interface ProviderMetadata {
  readonly issuer: string;
  readonly token_endpoint: string;
  readonly jwks_uri: string;
  /** Client authentication methods the token endpoint accepts (default per OIDC: basic). */
  readonly token_endpoint_auth_methods_supported: readonly string[];
  /** The UserInfo endpoint (OpenID Core §5.3), when the provider advertises a usable one. */
  readonly userinfo_endpoint?: string;
  /** The token revocation endpoint (RFC 7009; Sign in with Apple's `/auth/revoke`), if advertised. */
  readonly revocation_endpoint?: string;
}

/**
 * Reads `<issuer>/.well-known/openid-configuration`, checks that it names the configured
 * issuer, and applies the config's `token_endpoint` / `jwks_uri` overrides.
 *
 * @param provider the provider's config
 * @param fetchFn the fetch to use
 * @returns the metadata
 * @throws {OAuthError} 502/504 `server_error` when discovery fails or is inconsistent
 */
export async function discoverProvider(
  provider: ProviderConfig,
  fetchFn: Fetch,
): Promise<ProviderMetadata> {
  const url = `${provider.issuer}/.well-known/openid-configuration`;
  const res = await providerFetch(
    fetchFn,
    url,
    { headers: { accept: "application/json" } },
    provider.timeout,
  );
  if (!res.ok) {
    await res.body?.cancel();
    throw serverError(502, { msg: "provider discovery failed", url, status: res.status });
  }
  const doc = await providerJson(res, "discovery document");
  if (typeof doc.issuer !== "string" || doc.issuer.replace(/\/+$/, "") !== provider.issuer) {
    throw serverError(502, {
      msg: "provider discovery names another issuer",
      url,
      got: doc.issuer,
    });
  }
  const token_endpoint = provider.token_endpoint ?? endpoint(doc.token_endpoint, "token_endpoint");
  const jwks_uri = provider.jwks_uri ?? endpoint(doc.jwks_uri, "jwks_uri");
  const methods = Array.isArray(doc.token_endpoint_auth_methods_supported)
    ? doc.token_endpoint_auth_methods_supported.filter((m): m is string => typeof m === "string")
    : ["client_secret_basic"];
  // Optional: a provider without a (usable) UserInfo endpoint is signed in from its ID token.
  const userinfo_endpoint = usableUrl(doc.userinfo_endpoint);
  const revocation_endpoint = usableUrl(doc.revocation_endpoint);
  return {
    issuer: doc.issuer,
    token_endpoint,
    jwks_uri,
    token_endpoint_auth_methods_supported: methods,
    ...(userinfo_endpoint === undefined ? {} : { userinfo_endpoint }),
    ...(revocation_endpoint === undefined ? {} : { revocation_endpoint }),
  };
}

function endpoint(value: unknown, name: string): string {
  const url = usableUrl(value);
  if (url === undefined) {
    throw serverError(502, { msg: `provider discovery has no usable ${name}`, value });
  }
  return url;
}

/** `value` when it is a URL the service may call (https, or http on loopback). */
function usableUrl(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    return isAllowedIssuerUrl(new URL(value)) ? value : undefined;
  } catch {
    return undefined;
  }
}
