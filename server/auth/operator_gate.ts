/**
 * The operator-authentication gate of the internal listener: the per-peer lockout first, then
 * each configured mechanism in order; the first that accepts names the operator.
 *
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { InternalAuthMethod } from "../config/schema.ts";
import type { DepsWith } from "../deps.ts";
import { OAuthError, slowDown } from "../errors.ts";
import type { RequestInfo } from "../http/router.ts";
import { type AddressSet, createAddressSet } from "../limits/address_set.ts";
import { clientAddress, normalizeAddress } from "../limits/client_address.ts";
import {
  afterFailure,
  forgetAt,
  giveBack,
  type LockoutPolicy,
  retryAfterSeconds,
  takeAttempt,
} from "./lockout.ts";
import { type OperatorTokenRules, verifyOperatorToken } from "./operator_token.ts";
import { createVerifiedCredentials, rememberUntil } from "./verified_credentials.ts";

/** Who is calling the internal API, attached to the request once authenticated. */
export interface OperatorPrincipal {
  /** The mechanism that accepted the request. */
  readonly method: InternalAuthMethod;
  /** `sub` of the operator token, the certificate subject, or `shared-secret`. */
  readonly subject: string;
  /** The address failures would have counted against. */
  readonly peer: string;
}

/** The one description of every refused operator authentication. */
export const UNAUTHORIZED_DESCRIPTION = "Operator authentication is required";

/** What the gate depends on. */
export type GateDeps = DepsWith<
  "config" | "keys" | "clock" | "log" | "metrics" | "webhooks",
  "lockouts"
>;

/**
 * What an operator presents to the gate: a bearer credential (an operator token or the shared
 * secret), the headers a trusted proxy may assert (the mTLS subject, the client address) and
 * the connection. The internal API takes it from its request ({@linkcode credentialOf}); the
 * console from its sign-in form.
 */
export interface OperatorCredential {
  /** The bearer credential presented, if any. */
  readonly bearer: string | undefined;
  /** The request's headers, read only for what a trusted proxy asserts. */
  readonly headers: Headers;
  readonly info: RequestInfo;
}

/** The gate: the principal of a credential, or a throw (401 `unauthorized`, 429 `slow_down`). */
export type OperatorGate = (credential: OperatorCredential) => Promise<OperatorPrincipal>;

/** One mechanism: the operator's subject, or `undefined` when it does not accept. */
type Mechanism = (
  credential: OperatorCredential,
  socketPeer: string,
) => Promise<string | undefined> | string | undefined;

/**
 * The credential a request to the internal API presents: its `Authorization: Bearer` value,
 * its headers and its connection.
 *
 * @param req the request
 * @param info its connection
 * @returns what the gate decides on
 */
export function credentialOf(req: Request, info: RequestInfo): OperatorCredential {
  return { bearer: bearerOf(req.headers.get("authorization")), headers: req.headers, info };
}

/**
 * The credential of an `Authorization: Bearer <token>` header value: `undefined` without one,
 * or when it is not one token.
 *
 * @param authorization the header's value
 * @returns the token
 */
export function bearerOf(authorization: string | null): string | undefined {
  if (authorization === null) return undefined;
  const m = /^Bearer +(\S+) *$/i.exec(authorization);
  return m?.[1];
}

/**
 * Builds the gate for the configured `internal_api`.
 *
 * @param deps config, key manager, store, clock, logger and metrics
 * @returns `authenticate`, which resolves to the principal or throws
 *
 * @example
 * ```ts
 * import type { ServiceDeps } from "../deps.ts";
 * import type { RequestInfo } from "../http/router.ts";
 *
 * async function operatorOf(deps: ServiceDeps, req: Request, info: RequestInfo) {
 *   const gate = createOperatorGate(deps);
 *   return await gate(credentialOf(req, info)); // throws 401 unauthorized or 429 slow_down
 * }
 * ```
 */
export function createOperatorGate(deps: GateDeps): OperatorGate {
  const ia = deps.config.internal_api;
  const policy: LockoutPolicy = {
    threshold: ia.lockout.threshold,
    windowMs: ia.lockout.window * 1000,
  };
  const forwarded = {
    header: ia.client_ip_header,
    trustedProxies: createAddressSet(ia.mtls.trusted_proxies),
  };
  const mechanisms: Record<InternalAuthMethod, Mechanism> = {
    operator_token: operatorTokenMechanism(deps),
    mtls: mtlsMechanism(ia.mtls.header, forwarded.trustedProxies, ia.mtls.allowed_subjects),
    shared_secret: sharedSecretMechanism(ia.shared_secret),
  };
  const order = ia.auth_methods.map((m) => [m, mechanisms[m]] as const);
  const verified = createVerifiedCredentials();
  return async (credential) => {
    const socketPeer = normalizeAddress(credential.info.remoteAddr.hostname);
    const peer = clientAddress(socketPeer, credential.headers, forwarded);
    // A bearer credential accepted a moment ago is no guess: it spends no attempt (see
    // verified_credentials.ts). A locked-out peer is still refused below, whatever it presents.
    const presented = credential.bearer;
    const known = presented === undefined ? undefined : verified.get(presented, deps.clock.now());
    if (known !== undefined) {
      const state = await deps.store.lockouts.get(peer);
      if (state?.locked_until === undefined || state.locked_until <= deps.clock.now()) {
        return { ...known, peer };
      }
    }
    // The attempt is taken from the peer's budget in the store before any credential is
    // looked at, so parallel guesses (on any number of instances) cannot outrun the count,
    // and a locked-out peer learns nothing about its credentials.
    const remember = (s: Parameters<typeof forgetAt>[0]) => forgetAt(s, policy);
    const takenAt = deps.clock.now();
    let granted = false;
    const taken = await deps.store.lockouts.update(peer, (s) => {
      const t = takeAttempt(s, takenAt, policy);
      granted = t.granted;
      return t.state;
    }, remember);
    if (!granted) {
      deps.metrics.lockedOutRequest();
      throw slowDown(
        "Too many failed authentication attempts; retry after the delay in Retry-After",
        retryAfterSeconds(taken, takenAt, policy),
      );
    }
    for (const [method, accept] of order) {
      const subject = await accept(credential, socketPeer);
      if (subject !== undefined) {
        await deps.store.lockouts.update(peer, (s) => giveBack(s, taken.window_start), remember);
        if (presented !== undefined && method !== "mtls") {
          const now = deps.clock.now();
          verified.remember(presented, { method, subject }, rememberUntil(presented, method, now));
        }
        return { method, subject, peer };
      }
    }
    deps.metrics.operatorAuthFailure();
    const now = deps.clock.now();
    const next = await deps.store.lockouts.update(
      peer,
      (s) => afterFailure(s, now, policy),
      remember,
      (before, after) => deps.webhooks.operatorLockout(peer, before, after),
    );
    if (next.failures === policy.threshold && next.locked_until !== undefined) {
      deps.metrics.lockout();
      deps.log.warn("operator lockout", { peer, failures: next.failures });
    } else {
      deps.log.info("operator authentication failed", { peer, failures: next.failures });
    }
    throw new OAuthError("unauthorized", 401, UNAUTHORIZED_DESCRIPTION, {
      "WWW-Authenticate": "Bearer",
    });
  };
}

function operatorTokenMechanism(deps: GateDeps): Mechanism {
  const rules: OperatorTokenRules = {
    issuer: deps.config.server.issuer,
    audience: deps.config.internal_api.operator_token.audience,
    requiredClaim: deps.config.internal_api.operator_token.required_claim,
  };
  return async ({ bearer: token }) => {
    if (token === undefined) return undefined;
    return await verifyOperatorToken(deps.keys, token, rules, deps.clock.now());
  };
}

function mtlsMechanism(
  header: string,
  trustedProxies: AddressSet,
  allowedSubjects: readonly string[],
): Mechanism {
  const allowed = new Set(allowedSubjects);
  return ({ headers }, socketPeer) => {
    // Anyone can send the header; only a proxy that terminated the TLS session may assert it.
    if (!trustedProxies.has(socketPeer)) return undefined;
    const subject = headers.get(header)?.trim();
    return subject !== undefined && allowed.has(subject) ? subject : undefined;
  };
}

function sharedSecretMechanism(secret: string | undefined): Mechanism {
  if (secret === undefined || secret === "") return () => undefined;
  // Comparing fixed-length digests keeps the comparison constant-time whatever was presented.
  const expected = sha256(secret);
  return ({ bearer: presented }) => {
    if (presented === undefined) return undefined;
    return timingSafeEqual(sha256(presented), expected) ? "shared-secret" : undefined;
  };
}

function sha256(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}
