import { type ConfigIssue, interpolate } from "@org/shared";
import { applyEnvOverrides } from "./env_overrides.ts";
import { isTable, TableReader } from "./reader.ts";
import { isAllowedIssuerUrl } from "./url_rules.ts";
import { readWebhooks } from "./webhooks.ts";
import { readHooks } from "./hooks.ts";
import {
  type ClientSecretConfig,
  type Config,
  type InternalAuthMethod,
  type ProviderConfig,
  RESERVED_CLAIMS,
} from "./schema.ts";
import { isAddressOrRange } from "../limits/address_set.ts";
import { MIN_ENCRYPTION_KEY_BYTES } from "../keys/key_seal.ts";
import { compileClaims, type CompiledClaims, NO_CLAIMS } from "./claim_templates.ts";

export { isAllowedIssuerUrl } from "./url_rules.ts";

/** Defaults the spec fixes; documented in `docs/configuration.md`. */
export const DEFAULTS = {
  host: "127.0.0.1",
  port: 8080,
  kvPath: "./data/token-exchange.kv",
  /**
   * PostgreSQL connections per instance: the refresh path holds one for a single statement, so
   * a few connections carry thousands of requests a second; see docs/operations.md (sizing).
   */
  poolSize: 10,
  accessTokenTtl: 900,
  refreshTokenTtl: 30 * 86400,
  refreshGrace: 10,
  refreshGraceMax: 60,
  idTokenMaxAge: 600,
  internalHost: "127.0.0.1",
  internalPort: 8081,
  providerTimeout: 10,
  /**
   * Public rate limit per client address per window: generous enough that a NAT or office
   * behind one address is not throttled in normal use, low enough to blunt one noisy client.
   */
  rateLimitRequests: 1000,
  rateLimitWindow: 60,
  /**
   * Requests one client address may have in progress at once: far above what one client or
   * a NAT needs (a request takes milliseconds), low enough that a slow client cannot hold
   * hundreds of half-read bodies.
   */
  rateLimitMaxConcurrent: 128,
  /** Seconds a request body may take to arrive: any real client sends it in well under one. */
  bodyTimeout: 10,
  bodyTimeoutMax: 300,
  /** Seconds the audit trail keeps a record: 90 days. */
  auditRetention: 90 * 86400,
} as const;

const AUTH_METHODS: readonly InternalAuthMethod[] = ["operator_token", "mtls", "shared_secret"];
const SECTIONS = [
  "server",
  "storage",
  "keys",
  "token",
  "grants",
  "registration",
  "providers",
  "internal_api",
  "rate_limit",
  "webhooks",
  "hooks",
  "privacy",
  "audit",
];

/**
 * An unset `${VAR}` leaves its key empty, which the key's own rule then reports again ("is
 * required", "not a URL"): the variable is the one thing to fix, so it is reported once.
 */
function onePerUnsetVariable(issues: readonly ConfigIssue[]): ConfigIssue[] {
  const unset = new Set(
    issues.filter((i) => /^environment variable \S+ is not set$/.test(i.message)).map((i) =>
      i.path
    ),
  );
  return issues.filter((i) =>
    !unset.has(i.path) || /^environment variable \S+ is not set$/.test(i.message)
  );
}

/**
 * Turns a parsed config file plus the environment into the resolved {@linkcode Config}.
 *
 * Pure: `env` is passed in. `${VAR}` placeholders are replaced first, then
 * `TOKEN_EXCHANGE__SECTION__KEY` overrides applied, then every key is checked. All problems
 * are returned together (unknown key, wrong type, bad duration, unset variable, …).
 *
 * @param raw the parsed TOML table (`{}` for built-in defaults)
 * @param env environment variables
 * @returns the config, or every issue found
 *
 * @example
 * ```ts
 * const r = resolveConfig({ server: { port: 9000 } }, {});
 * if ("config" in r) r.config.token.access_token_ttl; // 900
 * ```
 */
export function resolveConfig(
  raw: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): { config: Config } | { errors: ConfigIssue[] } {
  const interpolated = interpolate(raw, env);
  const issues: ConfigIssue[] = [...interpolated.issues];
  const overridden = applyEnvOverrides(
    isTable(interpolated.value) ? interpolated.value : {},
    env,
  );
  const root = new TableReader(overridden.value, "", issues, overridden.fromEnv);
  for (const key of root.keys()) {
    if (!SECTIONS.includes(key)) root.issue(key, "unknown section");
  }

  const s = root.table("server");
  const host = s.string("host", DEFAULTS.host);
  const port = s.int("port", DEFAULTS.port, 0, 65535);
  const issuerRaw = s.string("issuer", undefined);
  const issuer = issuerRaw === undefined ? undefined : checkUrl(s, "issuer", issuerRaw);
  const role = s.oneOf("role", ["public", "admin", "all"] as const, "all");
  const body_timeout = s.duration("body_timeout", DEFAULTS.bodyTimeout, 1, DEFAULTS.bodyTimeoutMax);
  const cors_origins = readCorsOrigins(s);
  s.done();

  const st = root.table("storage");
  const kv_path = st.string("kv_path", DEFAULTS.kvPath);
  if (kv_path === "") st.issue("kv_path", "must not be empty");
  const url = st.string("url", undefined);
  if (url !== undefined && !/^postgres(ql)?:\/\/./i.test(url)) {
    st.issue("url", 'must be a PostgreSQL URL ("postgres://user@host:5432/database")');
  }
  const password = st.string("password", undefined);
  const pool_size = st.int("pool_size", DEFAULTS.poolSize, 1, 1000);
  const tls_ca_path = st.string("tls_ca_path", undefined);
  if (url === undefined) {
    for (const key of ["password", "tls_ca_path"] as const) {
      if ({ password, tls_ca_path }[key] !== undefined) {
        st.issue(key, "applies only to a PostgreSQL store; set storage.url too");
      }
    }
  }
  st.done();

  const k = root.table("keys");
  const private_key_path = k.string("private_key_path", undefined);
  const kid = k.string("kid", undefined);
  const encryption_key = k.string("encryption_key", undefined);
  if (
    encryption_key !== undefined &&
    new TextEncoder().encode(encryption_key).length < MIN_ENCRYPTION_KEY_BYTES
  ) {
    k.issue(
      "encryption_key",
      `must be at least ${MIN_ENCRYPTION_KEY_BYTES} bytes long (a random secret, such as ` +
        "`openssl rand -base64 32`)",
    );
  }
  if (kid !== undefined && private_key_path === undefined) {
    // Store-generated keys are always named by their RFC 7638 thumbprint (rotation creates
    // new ones), so a configured kid could never apply to them: refuse it rather than ignore.
    k.issue(
      "kid",
      "names the key in keys.private_key_path, which is not set; without a key file the " +
        "service generates its own key and names it by its thumbprint, so remove keys.kid " +
        "(or set keys.private_key_path)",
    );
  }
  k.done();

  const t = root.table("token");
  const access_token_ttl = t.duration("access_token_ttl", DEFAULTS.accessTokenTtl, 1);
  const refresh_token_ttl = t.duration("refresh_token_ttl", DEFAULTS.refreshTokenTtl, 1);
  const refresh_rotation = t.bool("refresh_rotation", true);
  const refresh_grace = t.duration(
    "refresh_grace",
    DEFAULTS.refreshGrace,
    0,
    DEFAULTS.refreshGraceMax,
  );
  const audience = readAudience(t);
  const custom_claims = readClaims(t);
  const dpop = t.oneOf("dpop", ["off", "optional", "required"] as const, "optional");
  t.done();

  const g = root.table("grants");
  const grants = {
    id_token: g.bool("id_token", false),
    id_token_max_age: g.duration("id_token_max_age", DEFAULTS.idTokenMaxAge, 1),
  };
  g.done();

  const r = root.table("registration");
  const registration = {
    mode: r.oneOf("mode", ["open", "existing_users_only"] as const, "open"),
    domain_allowlist: r.stringList("domain_allowlist", []).map((d) => d.toLowerCase()),
  };
  for (const d of registration.domain_allowlist) {
    if (!/^(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*$/.test(d)) {
      r.issue("domain_allowlist", `"${d}" is not a domain or "*.domain" wildcard`);
    }
  }
  r.done();

  const p = root.table("providers");
  const providers: Record<string, ProviderConfig> = {};
  for (const name of p.keys()) {
    const pr = p.table(name);
    const provider = readProvider(pr, name);
    pr.done();
    if (provider) providers[name] = provider;
  }

  const ia = root.table("internal_api");
  const ot = ia.table("operator_token");
  const mt = ia.table("mtls");
  const lo = ia.table("lockout");
  const internal_api = {
    enabled: ia.bool("enabled", false),
    host: ia.string("host", DEFAULTS.internalHost),
    port: ia.int("port", DEFAULTS.internalPort, 0, 65535),
    auth_methods: readAuthMethods(ia),
    shared_secret: ia.string("shared_secret", undefined),
    operator_token: {
      audience: ot.string("audience", "token-exchange-internal"),
      required_claim: ot.string("required_claim", "operator"),
    },
    mtls: {
      header: mt.string("header", "x-client-cert-subject").toLowerCase(),
      trusted_proxies: addressList(mt, "trusted_proxies"),
      allowed_subjects: mt.stringList("allowed_subjects", []),
    },
    lockout: {
      threshold: lo.int("threshold", 5, 1, 1_000_000),
      window: lo.duration("window", 15 * 60, 1),
    },
    client_ip_header: ia.string("client_ip_header", undefined)?.toLowerCase(),
  };
  ot.done();
  mt.done();
  lo.done();
  // The secret only matters when the internal API will actually accept it.
  const internalApiServed = role !== "public" && internal_api.enabled;
  if (internalApiServed && internal_api.auth_methods.includes("shared_secret")) {
    const secret = internal_api.shared_secret;
    if (secret === undefined || secret === "") {
      ia.issue("shared_secret", 'is required when auth_methods contains "shared_secret"');
    } else if (new TextEncoder().encode(secret).length < 32) {
      ia.issue("shared_secret", "must be at least 32 bytes long");
    }
  }
  ia.done();

  const rl = root.table("rate_limit");
  const rate_limit = {
    enabled: rl.bool("enabled", true),
    requests: rl.int("requests", DEFAULTS.rateLimitRequests, 1, 1_000_000_000),
    window: rl.duration("window", DEFAULTS.rateLimitWindow, 1),
    max_concurrent: rl.int("max_concurrent", DEFAULTS.rateLimitMaxConcurrent, 1, 1_000_000),
    client_ip_header: rl.string("client_ip_header", undefined)?.toLowerCase(),
    trusted_proxies: addressList(rl, "trusted_proxies"),
  };
  rl.done();

  const webhooks = readWebhooks(root.table("webhooks"), raw.webhooks);
  const hooks = readHooks(root.table("hooks"), raw.hooks);

  const pr = root.table("privacy");
  const privacy = {
    session_user_agent: pr.bool("session_user_agent", true),
    session_ip_prefix: pr.bool("session_ip_prefix", true),
  };
  pr.done();

  const au = root.table("audit");
  const audit = { retention: au.duration("retention", DEFAULTS.auditRetention, 1) };
  au.done();

  if (issues.length > 0) return { errors: onePerUnsetVariable(issues) };
  return {
    config: {
      server: { issuer: issuer?.replace(/\/+$/, ""), host, port, role, body_timeout, cors_origins },
      storage: { kv_path, url, password, pool_size, tls_ca_path },
      keys: { private_key_path, kid, encryption_key },
      token: {
        access_token_ttl,
        refresh_token_ttl,
        refresh_rotation,
        refresh_grace,
        audience,
        custom_claims,
        dpop,
      },
      grants,
      registration,
      providers,
      internal_api,
      rate_limit,
      webhooks,
      hooks,
      privacy,
      audit,
    },
  };
}

/** The issuer used when `server.issuer` is not set: the public listener's own address. */
export function defaultIssuer(host: string, port: number): string {
  const h = host.includes(":") ? `[${host}]` : host;
  return `http://${h}:${port}`;
}

function checkUrl(r: TableReader, key: string, value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    r.issue(key, `"${value}" is not a URL`);
    return undefined;
  }
  if (!isAllowedIssuerUrl(url)) {
    r.issue(key, `"${value}" must use https (plain http only on loopback hosts)`);
    return undefined;
  }
  if (url.search || url.hash) {
    r.issue(key, "must not have a query or fragment");
    return undefined;
  }
  return value;
}

/**
 * `server.cors_origins`: each entry one exact origin, written back in the form browsers send
 * (`https://app.example.com`: lower-case host, no default port, no trailing slash). Nothing
 * that could allow more than the operator listed: no `*`, no pattern, no `null` (sandboxed
 * frames and `file:` pages all share it), and the issuer rule for the scheme (`https`, plain
 * `http` only on loopback).
 */
function readCorsOrigins(s: TableReader): readonly string[] {
  const origins = new Set<string>();
  for (const value of s.stringList("cors_origins", [])) {
    const bad = (why: string) => s.issue("cors_origins", `"${value}" ${why}`);
    if (value.includes("*")) {
      bad("is a wildcard: list every origin exactly (scheme://host[:port])");
      continue;
    }
    if (value === "null") {
      bad("cannot be allowed: sandboxed frames and file: pages all send it");
      continue;
    }
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      bad("is not an origin (scheme://host[:port])");
      continue;
    }
    if (!isAllowedIssuerUrl(url)) {
      bad("must use https (plain http only on loopback hosts)");
    } else if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
      bad(`is not an origin: nothing may follow the host and port (${url.origin})`);
    } else origins.add(url.origin);
  }
  return [...origins];
}

function readAudience(t: TableReader): string | readonly string[] | undefined {
  const v = t.raw("audience");
  if (v === undefined) return undefined;
  if (typeof v === "string" && v !== "") return v;
  if (Array.isArray(v) && v.length > 0 && v.every((a) => typeof a === "string" && a !== "")) {
    return v as string[];
  }
  t.issue("audience", "must be a non-empty string or list of strings");
  return undefined;
}

function readClaims(t: TableReader): CompiledClaims {
  let v = t.raw("custom_claims");
  if (typeof v === "string" && t.fromEnv.has(t.at("custom_claims"))) {
    try {
      v = JSON.parse(v);
    } catch {
      t.issue("custom_claims", "must be a JSON object when set from the environment");
      return NO_CLAIMS;
    }
  }
  if (v === undefined) return NO_CLAIMS;
  if (!isTable(v)) {
    t.issue("custom_claims", "must be a table");
    return NO_CLAIMS;
  }
  const claims = JSON.parse(JSON.stringify(v)) as Record<string, unknown>;
  for (const name of Object.keys(claims)) {
    if (RESERVED_CLAIMS.has(name)) {
      t.issue(`custom_claims.${name}`, "is a reserved JWT claim and cannot be set");
    }
  }
  const compiled = compileClaims(claims);
  if ("issues" in compiled) {
    for (const i of compiled.issues) t.issue(`custom_claims.${i.path}`, i.message);
    return NO_CLAIMS;
  }
  return compiled.claims;
}

/** A list of IP addresses and CIDR ranges (trusted proxies); each bad entry is an issue. */
function addressList(t: TableReader, key: string): readonly string[] {
  const list = t.stringList(key, []);
  for (const entry of list) {
    if (!isAddressOrRange(entry)) {
      t.issue(key, `"${entry}" is not an IP address or CIDR range (like 10.0.0.0/8)`);
    }
  }
  return list;
}

function readAuthMethods(ia: TableReader): readonly InternalAuthMethod[] {
  const list = ia.stringList("auth_methods", ["operator_token"]);
  const out: InternalAuthMethod[] = [];
  for (const m of list) {
    if ((AUTH_METHODS as readonly string[]).includes(m)) out.push(m as InternalAuthMethod);
    else {
      ia.issue("auth_methods", `"${m}" is not one of ${AUTH_METHODS.join(", ")}`);
    }
  }
  if (list.length === 0) ia.issue("auth_methods", "must name at least one method");
  return out;
}

function readProvider(pr: TableReader, name: string): ProviderConfig | undefined {
  if (!/^[a-z0-9][a-z0-9_-]*$/.test(name)) {
    pr.issues.push({ path: pr.path, message: "provider names use a-z, 0-9, _ and -" });
  }
  const need = (key: string): string | undefined => {
    const v = pr.string(key, undefined);
    if (v === undefined || v === "") pr.issue(key, "is required");
    return v || undefined;
  };
  const issuerRaw = need("issuer");
  const issuer = issuerRaw === undefined ? undefined : checkUrl(pr, "issuer", issuerRaw);
  const client_id = need("client_id");
  const client_secret = readClientSecret(pr);
  const token_endpoint = optionalUrl(pr, "token_endpoint");
  const jwks_uri = optionalUrl(pr, "jwks_uri");
  const scopes = pr.stringList("scopes", ["openid", "email", "profile"]);
  const extra = pr.raw("additional_params");
  const additional_params: Record<string, string> = {};
  if (extra !== undefined) {
    if (isTable(extra) && Object.values(extra).every((x) => typeof x === "string")) {
      Object.assign(additional_params, extra);
    } else pr.issue("additional_params", "must be a table of strings");
  }
  const timeout = pr.duration("timeout", DEFAULTS.providerTimeout, 1, 120);
  if (!issuer || !client_id || !client_secret) return undefined;
  return {
    name,
    issuer: issuer.replace(/\/+$/, ""),
    client_id,
    client_secret,
    ...(token_endpoint ? { token_endpoint } : {}),
    ...(jwks_uri ? { jwks_uri } : {}),
    scopes,
    additional_params,
    timeout,
  };
}

/**
 * `client_secret`, or the `[apple_client_secret]` table it is minted from: exactly one of them.
 * The key itself is read and checked at startup, not here (resolution does no I/O).
 */
function readClientSecret(pr: TableReader): ClientSecretConfig | undefined {
  const value = pr.string("client_secret", undefined);
  const appleRaw = pr.raw("apple_client_secret");
  if (appleRaw === undefined) {
    if (value === undefined || value === "") {
      pr.issue("client_secret", "is required (or, for Sign in with Apple, [apple_client_secret])");
      return undefined;
    }
    return { kind: "static", value };
  }
  const a = pr.table("apple_client_secret");
  const need = (key: string): string | undefined => {
    const v = a.string(key, undefined);
    if (v === undefined || v === "") a.issue(key, "is required");
    return v || undefined;
  };
  const team_id = need("team_id");
  const key_id = need("key_id");
  const path = a.string("private_key_path", undefined);
  const pem = a.string("private_key", undefined);
  a.done();
  if (value !== undefined) {
    pr.issue("client_secret", "cannot be set together with apple_client_secret (which mints it)");
  }
  if ((path === undefined) === (pem === undefined) || path === "" || pem === "") {
    a.issue(
      "private_key_path",
      "exactly one of private_key_path (the .p8 file) and private_key (its PEM text, " +
        'e.g. "${APPLE_PRIVATE_KEY}") is required',
    );
    return undefined;
  }
  if (!team_id || !key_id || value !== undefined) return undefined;
  return {
    kind: "apple",
    team_id,
    key_id,
    private_key: path !== undefined ? { path } : { pem: pem! },
  };
}

function optionalUrl(pr: TableReader, key: string): string | undefined {
  const v = pr.string(key, undefined);
  return v === undefined ? undefined : checkUrl(pr, key, v);
}
