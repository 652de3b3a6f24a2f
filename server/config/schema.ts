/**
 * The resolved configuration of the token-exchange service: every default filled, every
 * duration in seconds. Produced only by {@linkcode resolveConfig} from `./resolve.ts`.
 *
 * @module
 */
import type { CompiledClaims } from "./claim_templates.ts";
import type { WebhookEndpoint } from "../webhooks/event_types.ts";

/** Which listeners a process runs; see `docs/configuration.md`. */
export type ServerRole = "public" | "admin" | "all";

/**
 * DPoP (RFC 9449) on `POST /token`: `off` ignores proofs; `optional` binds the tokens of a
 * request that carries a proof and issues Bearer tokens otherwise; `required` refuses a
 * request without one.
 */
export type DpopMode = "off" | "optional" | "required";

/** How new users are admitted on their first sign-in. */
export type RegistrationMode = "open" | "existing_users_only";

/** Operator authentication mechanisms of the internal API, tried in the configured order. */
export type InternalAuthMethod = "operator_token" | "mtls" | "shared_secret";

/**
 * Where a provider's client secret comes from: `client_secret` as configured, or, for Sign in
 * with Apple, `[providers.<name>.apple_client_secret]`: an ES256 JWT minted from the team's
 * `.p8` key (see `providers/apple_client_secret.ts`).
 */
export type ClientSecretConfig =
  | { readonly kind: "static"; readonly value: string }
  | {
    readonly kind: "apple";
    /** Apple Developer team id: the secret's `iss`. */
    readonly team_id: string;
    /** Id of the Sign in with Apple key: the secret's header `kid`. */
    readonly key_id: string;
    /** The `.p8` key: a file to read at startup, or its PEM text (usually from `${VAR}`). */
    readonly private_key: { readonly path: string } | { readonly pem: string };
  };

/** One upstream OpenID provider (`[providers.<name>]`). */
export interface ProviderConfig {
  /** The name used in the `provider` request parameter. */
  readonly name: string;
  /** Issuer URL; discovery is read from `<issuer>/.well-known/openid-configuration`. */
  readonly issuer: string;
  /** Our client id at the provider; ID tokens must name it in `aud`. */
  readonly client_id: string;
  /** How we get our client secret at the provider: configured, or minted (Sign in with Apple). */
  readonly client_secret: ClientSecretConfig;
  /** Overrides the discovered token endpoint. */
  readonly token_endpoint?: string;
  /** Overrides the discovered JWKS URL. */
  readonly jwks_uri?: string;
  /** Scopes the client asks for (informational for the code grant; default `openid email profile`). */
  readonly scopes: readonly string[];
  /** Extra form parameters sent with every token request to the provider. */
  readonly additional_params: Readonly<Record<string, string>>;
  /** Seconds to wait for the provider before answering 504. */
  readonly timeout: number;
}

/** One `[[webhooks.endpoints]]` entry, resolved. */
export type WebhookEndpointConfig = WebhookEndpoint;

/** `[webhooks]`. */
export interface WebhooksConfig {
  readonly endpoints: readonly WebhookEndpointConfig[];
  /** Seconds delivered and failed deliveries are kept with their attempts. */
  readonly retention: number;
}

/** `[hooks.access_token]`: the custom claims hook (`hooks/access_token_hook.ts`). */
export interface AccessTokenHookConfig {
  /** Where the signed POST goes: `https`, or plain `http` to a loopback host. */
  readonly url: string;
  /** The Standard Webhooks signing key (bytes), apart from any webhook endpoint's. */
  readonly secret: Uint8Array;
  /** Seconds to wait for the answer (1 to 10, default 2). */
  readonly timeout: number;
  /**
   * What a failed call does: `deny` answers the grant 503 `temporarily_unavailable`; `allow`
   * issues the token without the hook's claims (logged and counted).
   */
  readonly failure_policy: "deny" | "allow";
}

/** `[privacy]`: what a session keeps about the device that started it (`GET /sessions`). */
export interface PrivacyConfig {
  /** Keep the sign-in's `User-Agent` (at most 256 characters). */
  readonly session_user_agent: boolean;
  /** Keep the sign-in's network: its address cut to IPv4 /24 or IPv6 /48, never the address. */
  readonly session_ip_prefix: boolean;
}

/** `[hooks]`. */
export interface HooksConfig {
  readonly access_token?: AccessTokenHookConfig;
}

/** The whole resolved configuration. */
export interface Config {
  readonly server: {
    /** Our issuer URL; `undefined` means "derive from the bound public address". */
    readonly issuer: string | undefined;
    readonly host: string;
    readonly port: number;
    readonly role: ServerRole;
    /**
     * Seconds a request body may take to arrive on `/token`, `/revoke`, `/nonce` and the
     * internal API before the answer is 408.
     */
    readonly body_timeout: number;
    /**
     * Exact origins (`https://app.example.com`) whose pages may call `POST /token`, `/revoke`,
     * `/nonce` and the user's `/sessions` from a browser; empty (the default) answers no CORS.
     */
    readonly cors_origins: readonly string[];
  };
  readonly storage: {
    /** A file path, `:memory:`, or a KV Connect URL (`https://…`); unused with `url`. */
    readonly kv_path: string;
    /** `postgres://…`: a shared PostgreSQL store instead of Deno KV. */
    readonly url: string | undefined;
    /** Overrides the password in `url` (typically `${VAR}`). */
    readonly password: string | undefined;
    /** Most PostgreSQL connections one instance opens. */
    readonly pool_size: number;
    /** PEM CA bundle the PostgreSQL server's certificate must chain to (verified TLS). */
    readonly tls_ca_path: string | undefined;
  };
  readonly keys: {
    readonly private_key_path: string | undefined;
    readonly kid: string | undefined;
    /**
     * Secret (at least 32 bytes, normally `${VAR}`) that seals the private keys generated into
     * the store; `undefined` keeps them as plain PKCS#8.
     */
    readonly encryption_key: string | undefined;
  };
  readonly token: {
    readonly access_token_ttl: number;
    readonly refresh_token_ttl: number;
    readonly refresh_rotation: boolean;
    readonly refresh_grace: number;
    readonly audience: string | readonly string[] | undefined;
    /** Compiled: literal claims plus `{{ user.… }}` templates rendered per user. */
    readonly custom_claims: CompiledClaims;
    readonly dpop: DpopMode;
  };
  readonly grants: {
    readonly id_token: boolean;
    /** Oldest `iat` (seconds ago) accepted for a directly presented ID token. */
    readonly id_token_max_age: number;
  };
  readonly registration: {
    readonly mode: RegistrationMode;
    readonly domain_allowlist: readonly string[];
  };
  readonly providers: Readonly<Record<string, ProviderConfig>>;
  readonly internal_api: {
    readonly enabled: boolean;
    readonly host: string;
    readonly port: number;
    readonly auth_methods: readonly InternalAuthMethod[];
    readonly shared_secret: string | undefined;
    readonly operator_token: { readonly audience: string; readonly required_claim: string };
    readonly mtls: {
      readonly header: string;
      readonly trusted_proxies: readonly string[];
      readonly allowed_subjects: readonly string[];
    };
    readonly lockout: { readonly threshold: number; readonly window: number };
    /**
     * Header carrying the operator's address, believed only from `mtls.trusted_proxies`; the
     * lockout counts against that address instead of the proxy's.
     */
    readonly client_ip_header: string | undefined;
  };
  readonly rate_limit: {
    readonly enabled: boolean;
    /** Requests allowed per client address per window on `/token`, `/revoke`, `/nonce`. */
    readonly requests: number;
    readonly window: number;
    /** Requests one client address may have in progress at once on those paths. */
    readonly max_concurrent: number;
    /** Header carrying the client address, honoured only from `trusted_proxies`. */
    readonly client_ip_header: string | undefined;
    readonly trusted_proxies: readonly string[];
  };
  readonly webhooks: WebhooksConfig;
  readonly hooks: HooksConfig;
  readonly privacy: PrivacyConfig;
  readonly audit: {
    /** Seconds each audit record is kept. */
    readonly retention: number;
  };
}

/** JWT claim names no configuration or per-user claim may set. */
export const RESERVED_CLAIMS: ReadonlySet<string> = new Set([
  "iss",
  "sub",
  "aud",
  "exp",
  "nbf",
  "iat",
  "jti",
  "sid",
  "cnf",
]);

/**
 * Claim names the access-token hook may not set: the reserved claims, plus `scope` and
 * `client_id`, whose meaning a resource server takes from the issuer (RFC 9068 §2.2).
 */
export const HOOK_RESERVED_CLAIMS: ReadonlySet<string> = new Set([
  ...RESERVED_CLAIMS,
  "scope",
  "client_id",
]);
