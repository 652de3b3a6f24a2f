/**
 * The operator's operations on users, claims, sessions and the store: the only code that does
 * admin work on the store. The internal API's routes (`internal_routes.ts`) parse a request,
 * call one of these and answer its result as JSON; the console's pages call them and render
 * the result. Every change is made on behalf of an authenticated operator and writes its
 * audit record (in the store, in the same commit as the change where there is one) and its
 * audit line here, so both front ends audit alike.
 *
 * Inputs are already validated (`user_input.ts`); what needs the stored state to decide (an
 * id that names no user, a merged claims object too large) is decided here, as `OAuthError`s
 * both front ends show.
 *
 * @module
 */
import type { OperatorPrincipal } from "../auth/operator_gate.ts";
import type { DepsWith } from "../deps.ts";
import { conflict, resourceNotFound } from "../errors.ts";
import { accessTokenPayload } from "../grants/issue_tokens.ts";
import { liveSessionsOf, ownLiveSession, type SessionView } from "../sessions/user_sessions.ts";
import { type IdFactory, isSessionId, isUserId } from "../store/ids.ts";
import type { Actor, AuditQuery, AuditRecord } from "../store/audit.ts";
import type { StoredKey } from "../store/keys.ts";
import type { DeliveryQuery } from "../store/outbox.ts";
import type { SideRecord } from "../store/side_records.ts";
import type { UserRecord } from "../store/users.ts";
import { operatorActor } from "../audit/audit_trail.ts";
import { type AuditView, auditView } from "../audit/audit_view.ts";
import {
  deliveryId,
  type DeliveryView,
  deliveryView,
  parseDeliveryId,
} from "../webhooks/delivery_view.ts";
import { auditOperatorAction } from "./audit.ts";
import {
  checkClaimsSize,
  encodeCursor,
  mergeClaims,
  type NewUserInput,
  USER_STATUSES,
  type UserPatch,
} from "./user_input.ts";
import { lookUpUsers, type UserLookup } from "./user_lookup.ts";
import type { RevocationReason } from "../webhooks/events.ts";
import { FAILING_AFTER } from "../webhooks/retry_schedule.ts";
import { type UserView, userView } from "../users/user_view.ts";
import { exportUsers, type ImportReport, importUsers } from "./user_import.ts";

/** One live session as operators see it (the same view the user gets from `GET /sessions`). */
export type { SessionView };

/** One page of users in id order, and the cursor of the next page (`null` on the last). */
export interface UserPage {
  readonly users: UserView[];
  readonly next_cursor: string | null;
}

/** One page of the audit trail, newest first (`GET /internal/audit`). */
export interface AuditPage {
  readonly records: AuditView[];
  readonly next_cursor: string | null;
}

/** One page of webhook deliveries, newest message first (`GET /internal/webhooks/deliveries`). */
export interface DeliveryPage {
  readonly deliveries: DeliveryView[];
  readonly next_cursor: string | null;
}

/** What {@linkcode AdminOperations.stats} counts (`GET /internal/stats`). */
export interface StatsView {
  /** `total` and one count per status (every known status, 0 when none). */
  readonly users: Readonly<Record<string, number>>;
  readonly sessions: { readonly live: number };
  /** Provider-token revocations (Sign in with Apple) waiting in the store's queue. */
  readonly provider_revocations: { readonly pending: number };
}

/** The users a look-up found, and whether it covered every user. */
export interface FoundUsers {
  readonly users: UserView[];
  readonly complete: boolean;
}

/** The key ring as operators see it. */
export interface SigningKeys {
  readonly keys: readonly StoredKey[];
  /** The kid this process signs with. */
  readonly activeKid: string;
}

/** What the operations depend on. */
export type AdminDeps =
  & DepsWith<
    "clock" | "log" | "config" | "keys" | "random" | "webhooks" | "audit",
    | "users"
    | "sessions"
    | "stats"
    | "keyring"
    | "outbox"
    | "audit"
    | "webhookHealth"
    | "housekeeping"
    | "providerTokens"
  >
  & { readonly ids: IdFactory };

type Claims = Readonly<Record<string, unknown>>;

/** A webhook endpoint as the console shows it: where it goes and how its deliveries are going. */
export interface EndpointHealth {
  readonly id: string;
  readonly url: string;
  /** Failed attempts in a row, by any instance (0 after a success). */
  readonly consecutive_failures: number;
  /** True from `FAILING_AFTER` failures in a row until a delivery succeeds. */
  readonly failing: boolean;
}

/**
 * The operator's operations on `deps.store`; every change names the operator that makes it.
 * An id that names no user is 404 `not_found` (without a store look-up when it cannot be a
 * user id).
 *
 * @example
 * ```ts
 * import type { OperatorPrincipal } from "../auth/operator_gate.ts";
 * import type { ServiceDeps } from "../deps.ts";
 * import type { IdFactory } from "../store/ids.ts";
 *
 * async function suspend(deps: ServiceDeps, ids: IdFactory, operator: OperatorPrincipal) {
 *   const ops = new AdminOperations({ ...deps, ids });
 *   await ops.patchUser(operator, "usr_…", { status: "suspended" });
 * }
 * ```
 */
export class AdminOperations {
  /** @param deps store, clock, request-scoped logger, config, key manager and id factory */
  constructor(private readonly deps: AdminDeps) {}

  /** Creates an active user; 409 `conflict` when (provider, external_id) is taken. */
  async createUser(operator: OperatorPrincipal, input: NewUserInput): Promise<UserView> {
    const now = this.deps.clock.now();
    const user: UserRecord = {
      id: this.deps.ids.next("usr"),
      ...input,
      status: "active",
      created_at: now,
      updated_at: now,
    };
    const record = this.#record(operator, "user.create", user.id, { provider: user.provider });
    const events = this.deps.webhooks.userCreated(user, "admin", operatorActor(operator));
    if (!(await this.deps.store.users.create(user, [record, ...events])).ok) {
      throw conflict(
        `A user with provider "${input.provider}" and this external_id already exists`,
      );
    }
    this.#log(operator, record);
    return userView(user);
  }

  /**
   * Imports users with their ids from NDJSON (`admin/user_import.ts`): checked whole first,
   * nothing written when a line is malformed or conflicts; a re-run changes nothing.
   */
  async importUsers(operator: OperatorPrincipal, text: string): Promise<ImportReport> {
    const report = await importUsers(this.deps, this.deps.ids, text, operatorActor(operator));
    if (report.written) {
      auditOperatorAction(this.deps.log, operator, "users.import", {
        created: report.created,
        unchanged: report.unchanged,
        failed: report.problems.length,
      });
    }
    return report;
  }

  /** Every user as an NDJSON line of the import format, in id order. */
  exportUsers(): AsyncGenerator<string> {
    return exportUsers(this.deps.store.users);
  }

  /** Users after the user `after` (an id, from the cursor), at most `limit`. */
  async listUsers(after: string | undefined, limit: number): Promise<UserPage> {
    const page = pageOf(await this.deps.store.users.list(after, limit + 1), limit);
    return {
      users: page.shown.map(userView),
      next_cursor: page.last && encodeCursor(page.last.id),
    };
  }

  /** The audit records matching `query`, newest first, at most `limit`. */
  async listAudit(query: AuditQuery, limit: number): Promise<AuditPage> {
    const page = pageOf(await this.deps.store.audit.list(query, limit + 1), limit);
    return {
      records: page.shown.map(auditView),
      next_cursor: page.last && encodeCursor(page.last.id, "a1"),
    };
  }

  /**
   * Each configured webhook endpoint with its run of failed attempts, counted by every instance
   * on the store: failing from {@linkcode FAILING_AFTER} in a row, as the sender and the metric
   * say.
   */
  async webhookEndpoints(): Promise<EndpointHealth[]> {
    const runs = await this.deps.store.webhookHealth.read();
    return this.deps.config.webhooks.endpoints.map((e) => {
      const failures = runs.get(e.id) ?? 0;
      return {
        id: e.id,
        url: e.url,
        consecutive_failures: failures,
        failing: failures >= FAILING_AFTER,
      };
    });
  }

  /** The webhook deliveries matching `query`, newest message first, at most `limit`. */
  async listDeliveries(query: DeliveryQuery, limit: number): Promise<DeliveryPage> {
    const page = pageOf(await this.deps.store.outbox.deliveries(query, limit + 1), limit);
    const urls = this.#endpointUrls();
    return {
      deliveries: page.shown.map((d) => deliveryView(d, urls)),
      next_cursor: page.last && encodeCursor(deliveryId(page.last.id, page.last.endpoint), "d1"),
    };
  }

  /**
   * Queues the delivery `id` again, due now, with a fresh 24-hour retry window (its attempts so
   * far kept); a delivery still pending is left as it is, so asking twice queues it once.
   * 404 `not_found` for an id that names no delivery.
   */
  async redeliver(operator: OperatorPrincipal, id: string): Promise<DeliveryView> {
    const named = parseDeliveryId(id);
    if (named === undefined) throw resourceNotFound("delivery");
    const [message, endpoint] = named;
    const record = this.#record(operator, "webhook.redeliver", undefined, {
      delivery: id,
      message,
      endpoint,
    });
    const now = this.deps.clock.now();
    const done = await this.deps.store.outbox.redeliver(endpoint, message, now, [record]);
    if (done === undefined) throw resourceNotFound("delivery");
    if (done.requeued) this.#log(operator, record);
    return deliveryView(done.record, this.#endpointUrls());
  }

  /** Users found by id, provider and external id, or email (see `user_lookup.ts`). */
  async findUsers(lookup: UserLookup): Promise<FoundUsers> {
    const found = await lookUpUsers(this.deps.store.users, lookup);
    return { users: found.users.map(userView), complete: found.complete };
  }

  /** The user. */
  async getUser(id: string): Promise<UserView> {
    return userView(await this.#get(id));
  }

  /**
   * Applies `patch`. A user patched to `Deleted` loses every session; a suspension keeps them
   * stored: a refresh while suspended is refused (and revokes that session), and sessions not
   * used meanwhile work again after reactivation.
   */
  async patchUser(operator: OperatorPrincipal, id: string, patch: UserPatch): Promise<UserView> {
    const { user, record } = await this.#update(
      operator,
      id,
      (u) => ({ ...u, ...patch }),
      "user.update",
      (before) => ({
        fields: Object.keys(patch),
        ...(patch.status === undefined ? {} : { status: patch.status, from: before.status }),
      }),
    );
    const revoked = user.status === "Deleted"
      ? await endUserAccess(this.deps, user.id, "user_deleted", operatorActor(operator))
      : 0;
    this.#log(operator, record, revoked > 0 ? { revoked_sessions: revoked } : {});
    return userView(user);
  }

  /**
   * Marks the user `Deleted`, revokes every session and queues the revocation of their
   * provider tokens ({@linkcode deleteUserRecord}).
   */
  async deleteUser(operator: OperatorPrincipal, id: string): Promise<UserView> {
    let record: AuditRecord | undefined;
    const audited = (before: UserRecord) => {
      record = this.#record(operator, "user.delete", before.id, { from: before.status });
      return [record];
    };
    const deleted = isUserId(id)
      ? await deleteUserRecord(this.deps, id, operatorActor(operator), "user_deleted", audited)
      : undefined;
    if (!deleted) throw resourceNotFound("user");
    this.#log(operator, record!, { revoked_sessions: deleted.revoked });
    return userView(deleted.user);
  }

  /** The user's private claims. */
  async getClaims(id: string): Promise<Claims> {
    return (await this.#get(id)).claims;
  }

  /** Replaces the user's claims; the new claims. */
  async replaceClaims(operator: OperatorPrincipal, id: string, claims: Claims): Promise<Claims> {
    const { user, record } = await this.#update(
      operator,
      id,
      (u) => ({ ...u, claims }),
      "claims.replace",
      () => ({ claims: Object.keys(claims) }),
    );
    this.#log(operator, record);
    return user.claims;
  }

  /** Merges `patch` into the claims (`null` deletes one); 400 when the result is too large. */
  async mergeClaims(operator: OperatorPrincipal, id: string, patch: Claims): Promise<Claims> {
    const { user, record } = await this.#update(
      operator,
      id,
      (u) => {
        const claims = mergeClaims(u.claims, patch);
        checkClaimsSize(claims);
        return { ...u, claims };
      },
      "claims.merge",
      () => ({ claims: Object.keys(patch) }),
    );
    this.#log(operator, record);
    return user.claims;
  }

  /** Removes every claim; the (empty) claims. */
  async clearClaims(operator: OperatorPrincipal, id: string): Promise<Claims> {
    const { user, record } = await this.#update(
      operator,
      id,
      (u) => ({ ...u, claims: {} }),
      "claims.clear",
      () => ({}),
    );
    this.#log(operator, record);
    return user.claims;
  }

  /** The claims an access token issued to the user now would carry (`sid` a placeholder). */
  async previewAccessClaims(id: string): Promise<Record<string, unknown>> {
    const user = isUserId(id) ? await this.deps.store.users.get(id) : undefined;
    return user ? accessTokenPayload(this.deps, user, "(the session's id)") : {};
  }

  /** The user's live sessions, oldest first. */
  async listSessions(userId: string): Promise<SessionView[]> {
    await this.#get(userId);
    return await liveSessionsOf(this.deps.store.sessions, userId, this.deps.clock.now());
  }

  /** Revokes one live session of the user; 404 `not_found` when the user has no such one. */
  async revokeSession(operator: OperatorPrincipal, userId: string, sid: string): Promise<void> {
    await this.#get(userId);
    const { sessions } = this.deps.store;
    if (!isSessionId(sid)) throw resourceNotFound("session");
    // Another user's session is not this user's: the same 404 as one that does not exist.
    if (!await ownLiveSession(sessions, userId, sid, this.deps.clock.now())) {
      throw resourceNotFound("session");
    }
    const record = this.#record(operator, "session.revoke", userId, { session: sid });
    const revoked = this.deps.webhooks.revocation("admin", operatorActor(operator));
    if (
      !await sessions.revokeFamily(sid, this.deps.clock.now(), (f) => [record, ...revoked(f)])
    ) {
      throw resourceNotFound("session");
    }
    this.#log(operator, record);
  }

  /** Users per status and live sessions, from counters (no scan). */
  async stats(): Promise<StatsView> {
    const counts = await this.deps.store.stats.read();
    const byStatus: Record<string, number> = {};
    for (const s of USER_STATUSES) byStatus[s] = 0;
    for (const [s, n] of Object.entries(counts.users)) byStatus[s] = n;
    const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
    return {
      users: { total, ...byStatus },
      sessions: { live: counts.sessions },
      provider_revocations: { pending: await this.deps.store.providerTokens.pending() },
    };
  }

  /** One bounded batch of the store's housekeeping; how many sessions it deleted. */
  async sweepExpired(operator: OperatorPrincipal): Promise<number> {
    const deleted = await this.deps.store.housekeeping.sweepExpired(this.deps.clock.now());
    // The sweep is many commits of its own: its record follows them.
    const record = this.#record(operator, "sessions.cleanup", undefined, { deleted });
    await this.deps.store.audit.append([record]);
    this.#log(operator, record);
    return deleted;
  }

  /**
   * Records that `operator` signed in to or out of the console. The console writes its own log
   * line (it names the session's end), so only the record is written here.
   */
  async recordConsoleSession(
    operator: OperatorPrincipal,
    action: "console.login" | "console.logout",
  ): Promise<void> {
    const details = { auth: operator.method, peer: operator.peer };
    await this.deps.store.audit.append([this.#record(operator, action, undefined, details)]);
  }

  /** The signing keys in the store's ring, and the one this process signs with. */
  async signingKeys(): Promise<SigningKeys> {
    const { ring } = await this.deps.store.keyring.load();
    return { keys: ring?.keys ?? [], activeKid: this.deps.keys.activeKid };
  }

  /** The audit record of `action` by `operator`, to commit with the change. */
  #record(
    operator: OperatorPrincipal,
    action: string,
    user: string | undefined,
    details: Readonly<Record<string, unknown>>,
  ): AuditRecord {
    return this.deps.audit.record(operatorActor(operator), action, user, details);
  }

  /** The audit line of a committed `record` (with `extra` known only after the commit). */
  #log(
    operator: OperatorPrincipal,
    record: AuditRecord,
    extra: Readonly<Record<string, unknown>> = {},
  ): void {
    auditOperatorAction(this.deps.log, operator, record.action, {
      ...(record.user === undefined ? {} : { user: record.user }),
      ...record.details,
      ...extra,
    });
  }

  #endpointUrls(): Map<string, string> {
    return new Map(this.deps.config.webhooks.endpoints.map((e) => [e.id, e.url]));
  }

  async #get(id: string): Promise<UserRecord> {
    // A path segment that cannot be a user id is simply not a user: no store access.
    const user = isUserId(id) ? await this.deps.store.users.get(id) : undefined;
    if (!user) throw resourceNotFound("user");
    return user;
  }

  /**
   * Applies `change` to the user, committing its events and the audit record of `action` (with
   * `details` of the user as it was) in the same commit.
   */
  async #update(
    operator: OperatorPrincipal,
    id: string,
    change: (u: UserRecord) => UserRecord,
    action: string,
    details: (before: UserRecord) => Readonly<Record<string, unknown>>,
  ): Promise<{ user: UserRecord; record: AuditRecord }> {
    // The store may run this again after a lost race: the record committed is the last one.
    let record: AuditRecord | undefined;
    const records = (before: UserRecord, after: UserRecord) => {
      record = this.#record(operator, action, before.id, details(before));
      return [record, ...this.deps.webhooks.userChanged(before, after, operatorActor(operator))];
    };
    const user = isUserId(id) ? await this.deps.store.users.update(id, change, records) : undefined;
    if (!user) throw resourceNotFound("user");
    return { user, record: record! };
  }
}

/** What {@linkcode deleteUserRecord} did. */
export interface DeletedUser {
  readonly user: UserRecord;
  /** The status before. */
  readonly before: string;
  /** Sessions revoked. */
  readonly revoked: number;
}

/**
 * The deletion of a user, wherever it comes from (the internal API, the console, Apple's
 * `account-delete` notification): status `Deleted`, every session revoked, and the user's kept
 * provider token queued for revocation at the provider (`providers/apple_revocation.ts`). The
 * provider is never called here: a provider that is down never blocks a deletion.
 *
 * @param deps store, clock and logger
 * @param id the user's id
 * @param actor who deletes (its audit records name them)
 * @param reason the revoked sessions' reason
 * @param also records to commit with the status change (an operator action's audit record)
 * @returns what was done, or `undefined` when no user has `id`
 */
export async function deleteUserRecord(
  deps: DepsWith<"clock" | "log" | "webhooks", "users" | "sessions" | "providerTokens">,
  id: string,
  actor: Actor,
  reason: RevocationReason = "user_deleted",
  also: (before: UserRecord) => readonly SideRecord[] = () => [],
): Promise<DeletedUser | undefined> {
  let before = "";
  const user = await deps.store.users.update(id, (u) => {
    before = u.status;
    return { ...u, status: "Deleted" };
  }, (b, a) => [...also(b), ...deps.webhooks.userChanged(b, a, actor)]);
  if (!user) return undefined;
  // Status first, then sessions: a refresh racing the delete is refused on its next use.
  const revoked = await endUserAccess(deps, user.id, reason, actor);
  return { user, before, revoked };
}

/** Revokes every session of a deleted user and queues their provider token's revocation. */
async function endUserAccess(
  deps: DepsWith<"clock" | "log" | "webhooks", "sessions" | "providerTokens">,
  userId: string,
  reason: RevocationReason,
  actor: Actor,
): Promise<number> {
  const now = deps.clock.now();
  const revoked = await deps.store.sessions.revokeAllOfUser(
    userId,
    now,
    deps.webhooks.revocation(reason, actor),
  );
  try {
    if (await deps.store.providerTokens.queue(userId, now)) {
      deps.log.info("provider token revocation queued", { user: userId });
    }
  } catch (err) {
    // The deletion stands; the token stays kept, and a later delete queues it again.
    deps.log.error("queueing the provider token revocation failed", { user: userId, err });
  }
  return revoked;
}

/**
 * The first `limit` of `rows` (read with one extra row, which says whether another page exists
 * without counting the rest), and the last row shown when there is a next page.
 */
function pageOf<T>(rows: readonly T[], limit: number): { shown: T[]; last: T | null } {
  const more = rows.length > limit;
  const shown = more ? rows.slice(0, limit) : [...rows];
  return { shown, last: more ? shown[shown.length - 1]! : null };
}
