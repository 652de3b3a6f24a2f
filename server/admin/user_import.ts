/**
 * Moving users in and out with their ids: the NDJSON format of `POST /internal/users/import`,
 * `GET /internal/users/export` and `server/main.ts users import|export` (one user per line),
 * and the import itself, checked whole before anything is written.
 *
 * @module
 */
import { sleep } from "@org/shared";
import { type IdFactory, isUserId } from "../store/ids.ts";
import type { UserRecord, UserStatus } from "../store/users.ts";
import type { Actor } from "../store/audit.ts";
import type { DepsWith } from "../deps.ts";
import { isObject } from "../claims/claim_rules.ts";
import { OAuthError } from "../errors.ts";
import { parseNewUser, USER_STATUSES } from "./user_input.ts";

/** Most lines one import takes (a bigger export is imported in parts). */
export const MAX_IMPORT_LINES = 100_000;

/** Largest import body over HTTP (bytes): 100,000 users of a few hundred bytes each. */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;

/** Users written at once: small enough that refreshes keep being answered between batches. */
export const IMPORT_BATCH = 50;

/** One line of the format, as exported and as accepted. */
export interface UserLine {
  /** `usr_` + ULID; on import optional: without it the user is keyed by its identity. */
  readonly id?: string;
  readonly provider: string;
  readonly external_id: string;
  readonly email: string;
  readonly display_name?: string;
  readonly status?: UserStatus;
  readonly metadata?: Record<string, unknown>;
  readonly claims?: Record<string, unknown>;
  /** ISO 8601; on import optional (default: the time of the import). */
  readonly created_at?: string;
}

/** A line of an import that cannot be taken as it is, by its 1-based line number. */
export interface ImportProblem {
  readonly line: number;
  readonly reason: string;
  /** True when the line itself is wrong (bad JSON, a field breaking a rule), not a conflict. */
  readonly malformed?: boolean;
}

/** What an import did. */
export interface ImportReport {
  /** Users written now. */
  readonly created: number;
  /** Lines whose user is already stored exactly so (a re-run of the same file). */
  readonly unchanged: number;
  /**
   * Every malformed or conflicting line. When the check finds any, nothing is written
   * (`written: false`); a conflict that appears while writing (another writer) is reported
   * with the users already written kept.
   */
  readonly problems: readonly ImportProblem[];
  readonly written: boolean;
}

/** The export line of a user (every field, so an import of it recreates the user exactly). */
export function exportLine(user: UserRecord): string {
  const line: UserLine = {
    id: user.id,
    provider: user.provider,
    external_id: user.external_id,
    email: user.email,
    display_name: user.display_name,
    status: user.status as UserStatus,
    metadata: { ...user.metadata },
    claims: { ...user.claims },
    created_at: new Date(user.created_at).toISOString(),
  };
  return JSON.stringify(line);
}

/** One parsed line: the user it describes, and whether its id was given. */
interface Parsed {
  readonly line: number;
  readonly user: UserRecord;
  readonly givenId: boolean;
  readonly givenCreatedAt: boolean;
}

/**
 * Parses the NDJSON of an import (blank lines skipped): each line a {@linkcode UserLine}, held to
 * the rules of `POST /internal/users` (`parseNewUser`), plus `id` (`usr_` + ULID), `status` and
 * `created_at`. A user without `id` gets a new one.
 *
 * @returns the users by line, and every problem found
 */
export function parseImport(
  text: string,
  ids: IdFactory,
  now: number,
): { parsed: Parsed[]; problems: ImportProblem[] } {
  const parsed: Parsed[] = [];
  const problems: ImportProblem[] = [];
  const lines = text.split("\n");
  const byId = new Map<string, number>();
  const byIdentity = new Map<string, number>();
  let count = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!.trim();
    if (raw === "") continue;
    const line = i + 1;
    if (++count > MAX_IMPORT_LINES) {
      problems.push({
        line,
        reason: `more than ${MAX_IMPORT_LINES} users; import in parts`,
        malformed: true,
      });
      break;
    }
    const result = parseLine(raw, ids, now);
    if ("reason" in result) {
      problems.push({ line, reason: result.reason, malformed: true });
      continue;
    }
    const identity = `${result.user.provider}\u0000${result.user.external_id}`;
    const sameId = byId.get(result.user.id);
    const sameIdentity = byIdentity.get(identity);
    if (sameId !== undefined) {
      problems.push({ line, reason: `id ${result.user.id} is also on line ${sameId}` });
    } else if (sameIdentity !== undefined) {
      problems.push({ line, reason: `this provider identity is also on line ${sameIdentity}` });
    } else {
      byId.set(result.user.id, line);
      byIdentity.set(identity, line);
      parsed.push({ line, ...result });
    }
  }
  return { parsed, problems };
}

function parseLine(
  raw: string,
  ids: IdFactory,
  now: number,
): Omit<Parsed, "line"> | { reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return { reason: "not valid JSON" };
  }
  if (!isObject(value)) {
    return { reason: "must be a JSON object (one user per line)" };
  }
  const { id, status, created_at, ...rest } = value;
  if (id !== undefined && (typeof id !== "string" || !isUserId(id))) {
    return { reason: 'Field "id" must be usr_ followed by a ULID (or be left out)' };
  }
  if (status !== undefined && !(USER_STATUSES as readonly unknown[]).includes(status)) {
    return { reason: `Field "status" must be one of ${USER_STATUSES.join(", ")}` };
  }
  let created = now;
  if (created_at !== undefined) {
    created = typeof created_at === "string" ? Date.parse(created_at) : NaN;
    if (!Number.isFinite(created)) {
      return { reason: 'Field "created_at" must be an ISO 8601 date (or be left out)' };
    }
  }
  try {
    const input = parseNewUser(rest);
    return {
      user: {
        id: (id as string | undefined) ?? ids.next("usr"),
        ...input,
        status: (status as UserStatus | undefined) ?? "active",
        created_at: created,
        updated_at: now,
      },
      givenId: id !== undefined,
      givenCreatedAt: created_at !== undefined,
    };
  } catch (err) {
    if (err instanceof OAuthError) return { reason: err.description };
    throw err;
  }
}

/** What an import needs. */
export type ImportDeps = DepsWith<"clock" | "audit", "users" | "audit">;

/**
 * Imports the users of `text` (NDJSON, {@linkcode UserLine}): every line is parsed and checked
 * against the store first; a malformed line, or a conflict (an id or provider identity stored
 * with other data, or twice in the file), is reported by line and nothing is written. Else the
 * new users are written in batches of {@linkcode IMPORT_BATCH}, each user in one atomic create
 * (never half a user), and one audit record `users.import` names the counts. Users stored
 * exactly as their line says are left alone, so a re-run of the same file changes nothing.
 * Imported users get no `user.created` webhook (they are not new to the app).
 *
 * @param deps clock, audit trail and the users and audit stores
 * @param ids makes the ids of lines without one
 * @param text the NDJSON
 * @param actor who imports (the operator, or the CLI)
 * @returns the counts and problems
 */
export async function importUsers(
  deps: ImportDeps,
  ids: IdFactory,
  text: string,
  actor: Actor,
): Promise<ImportReport> {
  const now = deps.clock.now();
  const { parsed, problems } = parseImport(text, ids, now);
  // The lines that parsed are checked against the store too, so one report names every line.
  const toCreate: Parsed[] = [];
  let unchanged = 0;
  for (let i = 0; i < parsed.length; i += IMPORT_BATCH) {
    const batch = parsed.slice(i, i + IMPORT_BATCH);
    const decided = await Promise.all(batch.map((p) => decide(deps, p)));
    decided.forEach((d, j) => {
      if (d === "create") toCreate.push(batch[j]!);
      else if (d === "unchanged") unchanged++;
      else problems.push({ line: batch[j]!.line, reason: d.conflict });
    });
  }
  if (problems.length > 0) {
    problems.sort((a, b) => a.line - b.line);
    return { created: 0, unchanged, problems, written: false };
  }
  let created = 0;
  for (let i = 0; i < toCreate.length; i += IMPORT_BATCH) {
    const batch = toCreate.slice(i, i + IMPORT_BATCH);
    const results = await Promise.all(batch.map((p) => deps.store.users.create(p.user)));
    results.forEach((r, j) => {
      if (r.ok) created++;
      else {
        problems.push({
          line: batch[j]!.line,
          reason: "its id or provider identity was taken while the import ran",
        });
      }
    });
    // Let requests waiting on this process run between batches.
    await sleep(0);
  }
  await deps.store.audit.append([
    deps.audit.record(actor, "users.import", undefined, {
      created,
      unchanged,
      failed: problems.length,
    }),
  ]);
  return { created, unchanged, problems, written: true };
}

/** Whether a parsed line is a new user, already stored as it says, or a conflict. */
async function decide(
  deps: ImportDeps,
  p: Parsed,
): Promise<"create" | "unchanged" | { conflict: string }> {
  const { users } = deps.store;
  const [byId, byIdentity] = await Promise.all([
    p.givenId ? users.get(p.user.id) : Promise.resolve(undefined),
    users.findByExternalId(p.user.provider, p.user.external_id),
  ]);
  const stored = p.givenId ? byId : byIdentity;
  if (stored === undefined) {
    return byIdentity === undefined
      ? "create"
      : { conflict: `its provider identity belongs to user ${byIdentity.id}` };
  }
  const differs = differingField(stored, p);
  return differs === undefined
    ? "unchanged"
    : { conflict: `user ${stored.id} is stored with another ${differs}` };
}

/** The first field the stored user and the line disagree on, or `undefined`. */
function differingField(stored: UserRecord, p: Parsed): string | undefined {
  const u = p.user;
  const same = (a: unknown, b: unknown) => canonical(a) === canonical(b);
  const fields: [string, boolean][] = [
    ["provider", stored.provider === u.provider],
    ["external_id", stored.external_id === u.external_id],
    ["email", stored.email === u.email],
    ["display_name", stored.display_name === u.display_name],
    ["status", stored.status === u.status],
    ["metadata", same(stored.metadata, u.metadata)],
    ["claims", same(stored.claims, u.claims)],
    ["created_at", !p.givenCreatedAt || stored.created_at === u.created_at],
  ];
  return fields.find(([, equal]) => !equal)?.[0];
}

/** JSON with object keys sorted, so two equal values compare equal whatever their key order. */
function canonical(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, v) =>
      isObject(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : v,
  );
}

/**
 * Every user in id order as export lines, a page at a time (the store's `list`).
 *
 * @param users the user store
 * @param pageSize users read per page
 */
export async function* exportUsers(
  users: DepsWith<never, "users">["store"]["users"],
  pageSize = 500,
): AsyncGenerator<string> {
  let after: string | undefined;
  for (;;) {
    const page = await users.list(after, pageSize);
    for (const u of page) yield exportLine(u);
    if (page.length < pageSize) return;
    after = page[page.length - 1]!.id;
  }
}
