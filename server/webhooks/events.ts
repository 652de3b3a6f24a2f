/**
 * The security events of the service: the webhook messages that carry them to the subscribed
 * endpoints, and the audit record each one also is (whether or not an endpoint subscribed), all
 * committed with the change (`SideRecord`s). Payloads are built here from stored records, field
 * by field, so none ever holds a token, a token's hash, a secret, a user's private claims or
 * metadata; the audit records hold less still (ids, field names, reasons).
 *
 * @module
 */
import type { Clock, Random } from "@org/shared";
import type { WebhookEndpoint, WebhookEventType } from "./event_types.ts";
import { type AuditTrail, SERVICE_ACTOR } from "../audit/audit_trail.ts";
import { createIdFactory, type IdFactory } from "../store/ids.ts";
import type { Actor } from "../store/audit.ts";
import type { LockoutState } from "../store/lockout.ts";
import type { SessionFamily } from "../store/sessions.ts";
import type { OutboxFor, SideRecord } from "../store/side_records.ts";
import { userSummary } from "../users/user_view.ts";
import type { UserRecord } from "../store/users.ts";

/** Why a session was revoked (`session.revoked` `data.reason`). */
export type RevocationReason =
  | "logout"
  | "reuse_detected"
  | "admin"
  | "user_suspended"
  | "user_deleted"
  | "apple_notification";

/** How a user came to exist (`user.created` `data.source`). */
export type UserSource = "sign_in" | "admin";

/**
 * Builds what an event commits: one outbox message per endpoint subscribed to the event's type,
 * all with one `msg_` id (the Standard Webhooks `webhook-id`), and its audit record naming the
 * actor.
 */
export class WebhookEvents {
  readonly #ids: IdFactory;
  readonly #byType: ReadonlyMap<string, readonly string[]>;

  /**
   * @param endpoints `[[webhooks.endpoints]]` as resolved
   * @param clock the time of `created_at`
   * @param random randomness of the message ids
   * @param audit the trail every event is also recorded in
   */
  constructor(
    endpoints: readonly WebhookEndpoint[],
    private readonly clock: Clock,
    random: Random,
    private readonly audit: AuditTrail,
  ) {
    this.#ids = createIdFactory(clock, random);
    const byType = new Map<string, string[]>();
    for (const e of endpoints) {
      for (const t of e.events) byType.set(t, [...byType.get(t) ?? [], e.id]);
    }
    this.#byType = byType;
  }

  /**
   * The records of one event of `type`: the messages of `data` for the endpoints subscribed to
   * it (none when nobody subscribed), and its audit record (`actor`, `user`, `details`).
   */
  messages(
    type: WebhookEventType,
    data: Readonly<Record<string, unknown>>,
    actor: Actor,
    user: string | undefined,
    details: Readonly<Record<string, unknown>>,
  ): SideRecord[] {
    const audit = this.audit.record(actor, type, user, details);
    const endpoints = this.#byType.get(type);
    if (endpoints === undefined) return [audit];
    const id = this.#ids.next("msg");
    const created_at = this.clock.now();
    return [...endpoints.map((endpoint) => ({ id, endpoint, type, created_at, data })), audit];
  }

  /** `user.created` for `user`, by `actor` (the user themself at sign-in). */
  userCreated(user: UserRecord, source: UserSource, actor: Actor): SideRecord[] {
    return this.messages(
      "user.created",
      { user: userSummary(user), source },
      actor,
      user.id,
      { source, provider: user.provider },
    );
  }

  /**
   * `user.deleted` when the change made the user `Deleted`, else `user.updated` naming the
   * fields that changed.
   */
  userChanged(before: UserRecord, after: UserRecord, actor: Actor): SideRecord[] {
    const previous = before.status === after.status ? {} : { previous_status: before.status };
    if (after.status === "Deleted" && before.status !== "Deleted") {
      return this.messages("user.deleted", { user: userSummary(after) }, actor, after.id, previous);
    }
    const changed = (["email", "display_name", "status", "metadata", "claims"] as const)
      .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    return this.messages(
      "user.updated",
      { user: userSummary(after), changed, ...previous },
      actor,
      after.id,
      { changed, ...previous },
    );
  }

  /**
   * What a revocation for `reason` by `actor` commits: `session.revoked` per family revoked.
   * Without `actor`, the session's own user revoked it (a logout).
   */
  revocation(reason: RevocationReason, actor?: Actor): OutboxFor<[SessionFamily]> {
    return (family) =>
      this.sessionRevoked(family, reason, actor ?? { type: "user", id: family.user_id });
  }

  /**
   * What a reuse of a retired refresh token commits with its family's revocation:
   * `refresh_token.reuse_detected` and `session.revoked` (reason `reuse_detected`), both the
   * service's own decision.
   */
  reuse(): OutboxFor<[SessionFamily]> {
    return (family) => [
      ...this.messages(
        "refresh_token.reuse_detected",
        { session_id: family.id, user_id: family.user_id },
        SERVICE_ACTOR,
        family.user_id,
        { session_id: family.id },
      ),
      ...this.sessionRevoked(family, "reuse_detected", SERVICE_ACTOR),
    ];
  }

  /** `session.revoked` for `family`, with why and by whom. */
  sessionRevoked(family: SessionFamily, reason: RevocationReason, actor: Actor): SideRecord[] {
    return this.messages(
      "session.revoked",
      { session_id: family.id, user_id: family.user_id, reason },
      actor,
      family.user_id,
      { session_id: family.id, reason },
    );
  }

  /** `operator.lockout`, by the peer, when `next` starts a lockout that `before` did not have. */
  operatorLockout(
    peer: string,
    before: LockoutState | undefined,
    next: LockoutState,
  ): SideRecord[] {
    if (next.locked_until === undefined || before?.locked_until === next.locked_until) return [];
    const lockout = {
      failures: next.failures,
      locked_until: new Date(next.locked_until).toISOString(),
    };
    return this.messages(
      "operator.lockout",
      { peer, ...lockout },
      { type: "peer", id: peer },
      undefined,
      lockout,
    );
  }
}
