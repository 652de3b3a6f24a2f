/**
 * The audit trail's records: every operator action and every security event becomes an
 * {@linkcode AuditRecord}, built here and committed by the store with the change it reports
 * (`SideRecord`s, like the webhook outbox). Records hold ids, field names and reasons only:
 * callers pass nothing else (the webhook payload builders of `webhooks/events.ts` and the
 * admin operations), and a test looks for every token and secret of a run in the trail.
 *
 * @module
 */
import type { Clock, Random } from "@org/shared";
import { createIdFactory, type IdFactory } from "../store/ids.ts";
import type { Actor, AuditRecord } from "../store/audit.ts";

/** The service itself, the actor of what it decides on its own (reuse detection). */
export const SERVICE_ACTOR: Actor = { type: "service", id: "token-exchange" };

/**
 * The actor of what `operator` (an `OperatorPrincipal`, typed by shape so the audit trail
 * depends on nothing of the gate's) does.
 */
export function operatorActor(operator: { readonly subject: string }): Actor {
  return { type: "operator", id: operator.subject };
}

/**
 * Builds audit records, each kept for `retentionSeconds` (`audit.retention`).
 *
 * @example
 * ```ts
 * import { cryptoRandom, systemClock } from "@org/shared";
 *
 * const trail = new AuditTrail(90 * 86400, systemClock, cryptoRandom);
 * const r = trail.record({ type: "operator", id: "alice" }, "user.update", "usr_…", {
 *   fields: ["status"],
 * });
 * r.id; // "aud_…"
 * ```
 */
export class AuditTrail {
  readonly #ids: IdFactory;

  /**
   * @param retentionSeconds how long records are kept
   * @param clock the time of `at`
   * @param random randomness of the ids
   */
  constructor(
    private readonly retentionSeconds: number,
    private readonly clock: Clock,
    random: Random,
  ) {
    this.#ids = createIdFactory(clock, random);
  }

  /** One record of `action` by `actor`, about `user` (if any), with `details`. */
  record(
    actor: Actor,
    action: string,
    user: string | undefined,
    details: Readonly<Record<string, unknown>>,
  ): AuditRecord {
    const at = this.clock.now();
    return {
      id: this.#ids.next("aud"),
      at,
      actor,
      action,
      ...(user === undefined ? {} : { user }),
      details,
      expires_at: at + this.retentionSeconds * 1000,
    };
  }
}
