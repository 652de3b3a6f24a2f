/**
 * The webhook events the service emits and the outbox messages that carry them. Payloads are
 * built here from stored records, field by field, so none ever holds a token, a token's hash, a
 * secret, a user's private claims or metadata.
 *
 * @module
 */
import type { Clock, Random } from "@org/shared";
import type { WebhookEndpoint, WebhookEventType } from "./event_types.ts";
import { createIdFactory, type IdFactory } from "../store/ids.ts";
import type {
  LockoutState,
  OutboxFor,
  OutboxMessage,
  SessionFamily,
  UserRecord,
} from "../store/store.ts";

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

/** The user as webhooks show it: identity and status, never claims or metadata. */
export function userData(u: UserRecord): Record<string, unknown> {
  return {
    id: u.id,
    provider: u.provider,
    external_id: u.external_id,
    email: u.email,
    display_name: u.display_name,
    status: u.status,
    created_at: new Date(u.created_at).toISOString(),
    updated_at: new Date(u.updated_at).toISOString(),
  };
}

/**
 * Builds the outbox messages of events for the configured endpoints: one message per endpoint
 * subscribed to the event's type, all with one `msg_` id (the Standard Webhooks `webhook-id`).
 * With no endpoint subscribed it builds nothing, so a write carries no extra work.
 */
export class WebhookEvents {
  readonly #ids: IdFactory;
  readonly #byType: ReadonlyMap<string, readonly string[]>;

  /**
   * @param endpoints `[[webhooks.endpoints]]` as resolved
   * @param clock the time of `created_at`
   * @param random randomness of the message ids
   */
  constructor(
    endpoints: readonly WebhookEndpoint[],
    private readonly clock: Clock,
    random: Random,
  ) {
    this.#ids = createIdFactory(clock, random);
    const byType = new Map<string, string[]>();
    for (const e of endpoints) {
      for (const t of e.events) byType.set(t, [...byType.get(t) ?? [], e.id]);
    }
    this.#byType = byType;
  }

  /** True when some endpoint receives `type` (callers skip building a payload otherwise). */
  wanted(type: WebhookEventType): boolean {
    return this.#byType.has(type);
  }

  /** The messages of one event of `type` with `data`; empty when nobody subscribed. */
  messages(type: WebhookEventType, data: Readonly<Record<string, unknown>>): OutboxMessage[] {
    const endpoints = this.#byType.get(type);
    if (endpoints === undefined) return [];
    const id = this.#ids.next("msg");
    const created_at = this.clock.now();
    return endpoints.map((endpoint) => ({ id, endpoint, type, created_at, data }));
  }

  /** `user.created` for `user`. */
  userCreated(user: UserRecord, source: UserSource): OutboxMessage[] {
    return this.messages("user.created", { user: userData(user), source });
  }

  /**
   * `user.deleted` when the change made the user `Deleted`, else `user.updated` naming the
   * fields that changed.
   */
  userChanged(before: UserRecord, after: UserRecord): OutboxMessage[] {
    if (after.status === "Deleted" && before.status !== "Deleted") {
      return this.messages("user.deleted", { user: userData(after) });
    }
    const changed = (["email", "display_name", "status", "metadata", "claims"] as const)
      .filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
    return this.messages("user.updated", {
      user: userData(after),
      changed,
      ...(before.status === after.status ? {} : { previous_status: before.status }),
    });
  }

  /**
   * What a revocation for `reason` commits: `session.revoked` per family revoked, or
   * `undefined` when no endpoint wants it (so the store needs no transaction for it).
   */
  revocation(reason: RevocationReason): OutboxFor<[SessionFamily]> | undefined {
    return this.wanted("session.revoked")
      ? (family) => this.sessionRevoked(family, reason)
      : undefined;
  }

  /**
   * What a reuse of a retired refresh token commits with its family's revocation:
   * `refresh_token.reuse_detected` and `session.revoked` (reason `reuse_detected`); `undefined`
   * when no endpoint wants either.
   */
  reuse(): OutboxFor<[SessionFamily]> | undefined {
    if (!this.wanted("refresh_token.reuse_detected") && !this.wanted("session.revoked")) {
      return undefined;
    }
    return (family) => [
      ...this.messages("refresh_token.reuse_detected", {
        session_id: family.id,
        user_id: family.user_id,
      }),
      ...this.sessionRevoked(family, "reuse_detected"),
    ];
  }

  /** `session.revoked` for `family`, with why. */
  sessionRevoked(family: SessionFamily, reason: RevocationReason): OutboxMessage[] {
    return this.messages("session.revoked", {
      session_id: family.id,
      user_id: family.user_id,
      reason,
    });
  }

  /** `operator.lockout` when `next` starts a lockout that `before` did not have. */
  operatorLockout(
    peer: string,
    before: LockoutState | undefined,
    next: LockoutState,
  ): OutboxMessage[] {
    if (next.locked_until === undefined || before?.locked_until === next.locked_until) return [];
    return this.messages("operator.lockout", {
      peer,
      failures: next.failures,
      locked_until: new Date(next.locked_until).toISOString(),
    });
  }
}
