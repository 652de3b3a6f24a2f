/**
 * The console's sessions, kept in this process's memory: a session is opened by a verified
 * operator login and ends at logout, at its own end (never later than the operator token's
 * `exp`) or when the process stops. Only the SHA-256 of a session token is kept.
 *
 * @module
 */
import type { Clock, Random } from "@org/shared";
import type { OperatorPrincipal } from "../auth/operator_gate.ts";
import { newOpaqueToken, tokenHash } from "../sessions/opaque_token.ts";

/** The longest a console session lasts (ms), whatever the operator token allows. */
export const MAX_SESSION_MS = 8 * 3600 * 1000;

/** Sessions kept at most; past it the oldest ends first (a flood of logins cannot grow memory). */
export const MAX_SESSIONS = 1000;

/** One open console session. */
export interface ConsoleSession {
  /** Who logged in, as the gate named them; every action is audited under this principal. */
  readonly operator: OperatorPrincipal;
  /** The CSRF token every state-changing request of this session must carry. */
  readonly csrf: string;
  /** When the session ends (ms). */
  readonly expiresAt: number;
}

/**
 * The session table of one process.
 *
 * @example
 * ```ts
 * import { cryptoRandom, systemClock } from "@org/shared";
 * import type { OperatorPrincipal } from "../auth/operator_gate.ts";
 *
 * const principal: OperatorPrincipal = {
 *   method: "operator_token",
 *   subject: "alice",
 *   peer: "127.0.0.1",
 * };
 * const sessions = new ConsoleSessions(systemClock, cryptoRandom);
 * const { token } = sessions.open(principal, Date.now() + 3_600_000); // until the token expires
 * if (sessions.get(token)?.operator.subject !== "alice") throw new Error("open");
 * sessions.end(token);
 * ```
 */
export class ConsoleSessions {
  readonly #byHash = new Map<string, ConsoleSession>();

  /**
   * @param clock the service clock
   * @param random source of session and CSRF tokens
   */
  constructor(private readonly clock: Clock, private readonly random: Random) {}

  /**
   * Opens a session for `operator`, ending at `until` or after {@linkcode MAX_SESSION_MS},
   * whichever is first.
   *
   * @param operator the principal the gate accepted
   * @param until the end of the credential (the operator token's `exp`, ms)
   * @returns the session token (for the cookie only) and the session
   */
  open(operator: OperatorPrincipal, until: number): { token: string; session: ConsoleSession } {
    const now = this.clock.now();
    this.#prune(now);
    if (this.#byHash.size >= MAX_SESSIONS) {
      this.#byHash.delete(this.#byHash.keys().next().value!);
    }
    const token = newOpaqueToken(this.random);
    const session: ConsoleSession = {
      operator,
      csrf: newOpaqueToken(this.random),
      expiresAt: Math.min(until, now + MAX_SESSION_MS),
    };
    this.#byHash.set(tokenHash(token), session);
    return { token, session };
  }

  /** The open session of `token`, or `undefined` (unknown, ended or past its end). */
  get(token: string | undefined): ConsoleSession | undefined {
    if (token === undefined) return undefined;
    const hash = tokenHash(token);
    const session = this.#byHash.get(hash);
    if (session === undefined) return undefined;
    if (session.expiresAt <= this.clock.now()) {
      this.#byHash.delete(hash);
      return undefined;
    }
    return session;
  }

  /** Ends the session of `token`; true when one was open. */
  end(token: string | undefined): boolean {
    return token !== undefined && this.#byHash.delete(tokenHash(token));
  }

  /** How many sessions are open. */
  get size(): number {
    this.#prune(this.clock.now());
    return this.#byHash.size;
  }

  #prune(now: number): void {
    for (const [hash, s] of this.#byHash) if (s.expiresAt <= now) this.#byHash.delete(hash);
  }
}
