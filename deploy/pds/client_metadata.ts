/**
 * The two documents a site publishes so an AT Protocol authorization server accepts it as a
 * confidential OAuth client: `/oauth/client-metadata.json` (whose own URL is the `client_id`)
 * and `/oauth/jwks.json` (the client's public key). `deploy pds keygen` writes both under
 * `paths.publicDir`; `deploy pds login` checks the deployed copies against the secret.
 *
 * @module
 */
import { type PrivateEcJwk, type PublicEcJwk, publicJwk } from "./client_key.ts";

/** The URL paths of the client documents and of the callback page the site must have. */
export const CLIENT_PATHS = {
  metadata: "/oauth/client-metadata.json",
  jwks: "/oauth/jwks.json",
  callback: "/oauth/callback",
} as const;

/** The scope the client asks for: the AT Protocol and the transitional generic repo scope. */
export const CLIENT_SCOPE = "atproto transition:generic";

/** The client metadata document (atproto OAuth profile of RFC 7591 metadata). */
export interface ClientMetadata {
  readonly client_id: string;
  readonly client_name: string;
  readonly client_uri: string;
  readonly application_type: "web";
  readonly redirect_uris: readonly string[];
  readonly grant_types: readonly string[];
  readonly response_types: readonly string[];
  readonly scope: string;
  readonly token_endpoint_auth_method: "private_key_jwt";
  readonly token_endpoint_auth_signing_alg: "ES256";
  readonly dpop_bound_access_tokens: true;
  readonly jwks_uri: string;
}

/** The published key set. */
export interface ClientJwks {
  readonly keys: readonly PublicEcJwk[];
}

/**
 * The client's identity at a site origin: its `client_id` and redirect URI.
 *
 * @param origin the site origin, `https://<domain>` (tests: a loopback https origin)
 * @returns `client_id` and `redirect_uri`
 */
export function clientUrls(origin: string): { clientId: string; redirectUri: string } {
  return {
    clientId: origin + CLIENT_PATHS.metadata,
    redirectUri: origin + CLIENT_PATHS.callback,
  };
}

/**
 * The client metadata document for a site.
 *
 * @param origin the site origin, `https://<domain>`
 * @param name the client name shown on the consent screen (`pds.name`)
 * @returns the document
 */
export function clientMetadata(origin: string, name: string): ClientMetadata {
  const { clientId, redirectUri } = clientUrls(origin);
  return {
    client_id: clientId,
    client_name: name,
    client_uri: origin,
    application_type: "web",
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    scope: CLIENT_SCOPE,
    token_endpoint_auth_method: "private_key_jwt",
    token_endpoint_auth_signing_alg: "ES256",
    dpop_bound_access_tokens: true,
    jwks_uri: origin + CLIENT_PATHS.jwks,
  };
}

/**
 * The key set to publish for a client key: its public half only.
 *
 * @param key the private client key
 * @returns `{ keys: [public JWK] }`
 */
export function clientJwks(key: PrivateEcJwk): ClientJwks {
  return { keys: [publicJwk(key)] };
}

/** Why a deployed client document does not match the secret. */
export type DeployedDocumentProblem =
  | { readonly kind: "not_deployed"; readonly url: string; readonly status: number | "network" }
  | { readonly kind: "not_json"; readonly url: string }
  | { readonly kind: "different"; readonly url: string; readonly keys: readonly string[] };

/**
 * Compares a deployed document with the expected one: which top-level members differ (by
 * JSON value), so the error can say what is stale.
 *
 * @param url where it was fetched from
 * @param deployed the parsed deployed document
 * @param expected what the secret and config imply
 * @returns null when equal, else the `different` problem naming the members
 */
export function compareDeployed(
  url: string,
  deployed: unknown,
  expected: object,
): DeployedDocumentProblem | null {
  if (typeof deployed !== "object" || deployed === null || Array.isArray(deployed)) {
    return { kind: "different", url, keys: ["(not an object)"] };
  }
  const a = deployed as Record<string, unknown>;
  const b = expected as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .filter((k) => canonical(a[k]) !== canonical(b[k]))
    .sort();
  return keys.length === 0 ? null : { kind: "different", url, keys };
}

/** JSON with sorted object keys, so member order never counts as a difference. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, v: unknown) =>
      v && typeof v === "object" && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => x.localeCompare(y)))
        : v,
  ) ?? "undefined";
}
