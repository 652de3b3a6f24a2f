/**
 * Sign in with Apple's server-to-server notifications: the events Apple sends, read from a
 * verified payload, and what each does to the user it names. The user operations it needs
 * (look-up, deletion) are passed in by the endpoint, so this provider work depends on no
 * operator code.
 *
 * @module
 */
import type { JWTPayload } from "jose";
import type { DepsWith } from "../deps.ts";
import type { Actor } from "../store/audit.ts";
import type { UserRecord } from "../store/users.ts";

/**
 * Oldest `iat` (seconds) accepted on a notification: Apple delivers within seconds and retries
 * a failed delivery soon after; anything older is refused rather than replayed.
 */
export const NOTIFICATION_MAX_AGE = 3600;

/** The event types Sign in with Apple sends to a server-to-server notification endpoint. */
export type AppleEventType =
  | "consent-revoked"
  | "account-delete"
  | "email-disabled"
  | "email-enabled";

/** One verified notification's event. */
export interface AppleEvent {
  /** One of {@linkcode AppleEventType}, or a type this release does not know. */
  readonly type: string;
  /** The user's Apple `sub` (as in their ID tokens). */
  readonly sub: string;
  /** When Apple says it happened (ms), if given. */
  readonly at: number | undefined;
}

/**
 * The event of a verified notification payload. Apple sends `events` as a JSON string
 * (`"{\"type\":\"email-disabled\",\"sub\":\"…\",\"event_time\":1508184845…}"`); an object is
 * accepted too.
 *
 * @param payload the verified JWT payload
 * @returns the event, or `undefined` when `events` carries no string `type` and `sub`
 */
export function appleEventOf(payload: JWTPayload): AppleEvent | undefined {
  let events: unknown = payload.events;
  if (typeof events === "string") {
    try {
      events = JSON.parse(events);
    } catch {
      return undefined;
    }
  }
  if (typeof events !== "object" || events === null || Array.isArray(events)) return undefined;
  const { type, sub, event_time } = events as Record<string, unknown>;
  if (typeof type !== "string" || typeof sub !== "string" || sub === "") return undefined;
  const at = typeof event_time === "number" && Number.isFinite(event_time)
    ? event_time * (event_time < 1e11 ? 1000 : 1) // seconds (documented) or milliseconds
    : undefined;
  return { type, sub, at };
}

/** What acting on an event depends on: the stores it touches and the user operations it uses. */
export type AppleEventDeps = DepsWith<"clock" | "log" | "webhooks", "users" | "sessions"> & {
  /** The user signed in through `provider` as `externalId` (the guarded look-up), if any. */
  readonly findUser: (provider: string, externalId: string) => Promise<UserRecord | undefined>;
  /**
   * Deletes the user as `DELETE /internal/users/{id}` does (status `Deleted`, sessions revoked
   * for `apple_notification`, the kept Apple token queued for revocation), by `actor`.
   *
   * @returns how many sessions were revoked, or `undefined` when the user is gone
   */
  readonly deleteUser: (id: string, actor: Actor) => Promise<{ revoked: number } | undefined>;
};

/**
 * Acts on one verified event for the user signed in through `provider` as `event.sub`:
 *
 * - `consent-revoked` (the user stopped using Sign in with Apple with the app) and
 *   `account-delete` (the Apple Account is gone): every session of the user is revoked;
 *   `account-delete` deletes the user by the same operation as `DELETE /internal/users/{id}`
 *   (status `Deleted`, and the kept Apple refresh token queued for revocation).
 * - `email-disabled` / `email-enabled` (the user turned mail forwarding from their private relay
 *   address off or on): `metadata.apple_email_forwarding` becomes `"disabled"` / `"enabled"`,
 *   with `metadata.apple_email_forwarding_at` (ISO time of the event).
 * - Any other type, or a user we do not know: nothing changes; logged.
 *
 * @returns what was done, for the log and the tests
 */
export async function applyAppleEvent(
  deps: AppleEventDeps,
  provider: string,
  event: AppleEvent,
): Promise<"revoked" | "deleted" | "metadata" | "unknown_user" | "ignored"> {
  const { users, sessions } = deps.store;
  const known = ["consent-revoked", "account-delete", "email-disabled", "email-enabled"];
  if (!known.includes(event.type)) {
    deps.log.warn("apple notification: unknown event type ignored", { provider, type: event.type });
    return "ignored";
  }
  const user = await deps.findUser(provider, event.sub);
  if (user === undefined) {
    deps.log.info("apple notification for no known user", { provider, type: event.type });
    return "unknown_user";
  }
  const now = deps.clock.now();
  const apple: Actor = { type: "provider", id: provider };
  const revokedMessages = deps.webhooks.revocation("apple_notification", apple);
  const changedMessages = (before: UserRecord, after: UserRecord) =>
    deps.webhooks.userChanged(before, after, apple);
  switch (event.type as AppleEventType) {
    case "consent-revoked": {
      const revoked = await sessions.revokeAllOfUser(user.id, now, revokedMessages);
      deps.log.info("apple consent revoked: sessions revoked", { user: user.id, revoked });
      return "revoked";
    }
    case "account-delete": {
      const deleted = await deps.deleteUser(user.id, apple);
      deps.log.info("apple account deleted: user deleted, sessions revoked", {
        user: user.id,
        revoked: deleted?.revoked ?? 0,
      });
      return "deleted";
    }
    case "email-disabled":
    case "email-enabled": {
      const forwarding = event.type === "email-disabled" ? "disabled" : "enabled";
      await users.update(user.id, (u) => ({
        ...u,
        metadata: {
          ...u.metadata,
          apple_email_forwarding: forwarding,
          apple_email_forwarding_at: new Date(event.at ?? now).toISOString(),
        },
      }), changedMessages);
      deps.log.info("apple email forwarding changed", { user: user.id, forwarding });
      return "metadata";
    }
  }
}
