/**
 * Validation of internal-API request bodies and queries, as pure functions: every problem is a
 * 400 `invalid_request` naming the field.
 *
 * @module
 */
import { clip, invalidRequest } from "../errors.ts";
import type { UserStatus } from "../store/users.ts";
import { parseEmailAddress } from "../users/email_address.ts";
import { isStorableText } from "../users/storable_text.ts";
import {
  byteLength,
  checkDepth,
  checkStorable,
  isObject,
  parseClaims,
} from "../claims/claim_rules.ts";

export {
  checkClaimsSize,
  FORBIDDEN_CLAIM_NAMES,
  MAX_CLAIMS_BYTES,
  MAX_JSON_DEPTH,
  parseClaims,
} from "../claims/claim_rules.ts";
import { truncateText, USER_FIELD_LIMITS } from "../users/user_fields.ts";

/** Every status a user may have; see `docs/http-api.md` for what each allows. */
export const USER_STATUSES: readonly UserStatus[] = ["active", "suspended", "Deleted"];

/** Largest serialized metadata object (bytes of JSON). */
export const MAX_METADATA_BYTES = 16 * 1024;
/** Users per page when `limit` is not given, and the most one page holds. */
export const LIST_LIMIT = { default: 50, max: 200 } as const;

/** A validated `POST /internal/users` body. */
export interface NewUserInput {
  readonly external_id: string;
  readonly provider: string;
  readonly email: string;
  readonly display_name: string;
  readonly metadata: Record<string, unknown>;
  readonly claims: Record<string, unknown>;
}

/** A validated `PATCH /internal/users/{id}` body: only the fields given. */
export interface UserPatch {
  readonly display_name?: string;
  readonly status?: UserStatus;
  readonly metadata?: Record<string, unknown>;
}

type Json = Record<string, unknown>;

const STRING_LIMITS = USER_FIELD_LIMITS;

/**
 * Parses a JSON body that must be an object.
 *
 * @param text the request body
 * @throws {OAuthError} 400 when it is empty, not JSON, or not an object
 */
export function parseJsonObject(text: string): Json {
  if (text.trim() === "") throw invalidRequest("The request body must be a JSON object");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidRequest("The request body is not valid JSON");
  }
  if (!isObject(value)) throw invalidRequest("The request body must be a JSON object");
  return value;
}

/**
 * Validates a create-user body: `external_id`, `provider`, `email` required non-empty strings;
 * `display_name` an optional string (default: the email); `metadata` and `claims` optional
 * objects. Any other field is refused.
 *
 * @throws {OAuthError} 400 `invalid_request` naming the first bad field
 */
export function parseNewUser(body: Json): NewUserInput {
  onlyFields(body, ["external_id", "provider", "email", "display_name", "metadata", "claims"]);
  const external_id = requiredString(body, "external_id");
  const provider = requiredString(body, "provider");
  const email = requiredString(body, "email");
  checkEmail(email);
  const display_name = optionalString(body, "display_name") ??
    truncateText(email, STRING_LIMITS.display_name);
  const metadata = body.metadata === undefined ? {} : parseMetadata(body.metadata);
  const claims = body.claims === undefined ? {} : parseClaims(body.claims, "claims");
  return { external_id, provider, email, display_name, metadata, claims };
}

/**
 * Validates a patch-user body: any of `display_name` (string), `status` (one of
 * {@linkcode USER_STATUSES}), `metadata` (object, replaces the stored one).
 *
 * @throws {OAuthError} 400 `invalid_request` naming the first bad field
 */
export function parseUserPatch(body: Json): UserPatch {
  onlyFields(body, ["display_name", "status", "metadata"]);
  const patch: { display_name?: string; status?: UserStatus; metadata?: Json } = {};
  const display_name = optionalString(body, "display_name");
  if (display_name !== undefined) patch.display_name = display_name;
  if (body.status !== undefined) {
    if (typeof body.status !== "string") throw invalidRequest('Field "status" must be a string');
    if (!(USER_STATUSES as readonly string[]).includes(body.status)) {
      throw invalidRequest(`Field "status" must be one of ${USER_STATUSES.join(", ")}`);
    }
    patch.status = body.status as UserStatus;
  }
  if (body.metadata !== undefined) patch.metadata = parseMetadata(body.metadata);
  return patch;
}

/**
 * Merges a claims patch (RFC 7396 style, one level): given keys replace, `null` removes.
 *
 * @returns the new claims map (inputs untouched)
 */
export function mergeClaims(current: Readonly<Json>, patch: Readonly<Json>): Json {
  const out: Json = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/**
 * What a cursor continues: `u1` the users list, `a1` the audit trail, `d1` the webhook
 * deliveries. A cursor of one list is refused by another.
 */
export type CursorKind = "u1" | "a1" | "d1";

/**
 * Reads `cursor` and `limit` of a list (`GET /internal/users`, `/internal/audit`,
 * `/internal/webhooks/deliveries`): `limit` a positive integer (default 50, larger values
 * clamped to 200), `cursor` an opaque value from a previous `next_cursor` of the same list.
 *
 * @returns the id to continue after (if any) and the page size
 * @throws {OAuthError} 400 `invalid_request` naming `limit` or `cursor`
 */
export function parseListQuery(
  query: URLSearchParams,
  kind: CursorKind = "u1",
): { after: string | undefined; limit: number } {
  const rawLimit = query.get("limit");
  let limit: number = LIST_LIMIT.default;
  if (rawLimit !== null) {
    if (!/^[0-9]{1,9}$/.test(rawLimit) || Number(rawLimit) < 1) {
      throw invalidRequest('Query parameter "limit" must be a positive integer');
    }
    limit = Math.min(LIST_LIMIT.max, Number(rawLimit));
  }
  const cursor = query.get("cursor");
  const after = cursor === null || cursor === "" ? undefined : decodeCursor(cursor, kind);
  return { after, limit };
}

/** The opaque `next_cursor` continuing after `id` in the list `kind` (default: users). */
export function encodeCursor(id: string, kind: CursorKind = "u1"): string {
  return btoa(`${kind}:${id}`).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}

function decodeCursor(cursor: string, kind: CursorKind): string {
  const invalid = () => invalidRequest('Query parameter "cursor" is not a cursor this API issued');
  if (!/^[A-Za-z0-9_-]{1,400}$/.test(cursor)) throw invalid();
  let text: string;
  try {
    text = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    throw invalid();
  }
  if (!text.startsWith(`${kind}:`) || text.length === 3 || !isStorableText(text)) throw invalid();
  return text.slice(3);
}

function onlyFields(body: Json, allowed: readonly string[]): void {
  for (const k of Object.keys(body)) {
    if (!allowed.includes(k)) throw invalidRequest(`Unknown field "${clip(k)}"`);
  }
}

function requiredString(body: Json, field: keyof typeof STRING_LIMITS): string {
  const v = body[field];
  if (v === undefined) throw invalidRequest(`Field "${field}" is required`);
  const s = optionalString(body, field);
  if (s === undefined || s === "") throw invalidRequest(`Field "${field}" must not be empty`);
  return s;
}

function optionalString(body: Json, field: keyof typeof STRING_LIMITS): string | undefined {
  const v = body[field];
  if (v === undefined) return undefined;
  if (typeof v !== "string") throw invalidRequest(`Field "${field}" must be a string`);
  if (v.length > STRING_LIMITS[field]) {
    throw invalidRequest(`Field "${field}" must be at most ${STRING_LIMITS[field]} characters`);
  }
  checkStorable(v, field);
  return v;
}

function checkEmail(email: string): void {
  if (!parseEmailAddress(email)) throw invalidRequest('Field "email" must be an email address');
}

function parseMetadata(value: unknown): Json {
  if (!isObject(value)) throw invalidRequest('Field "metadata" must be a JSON object');
  checkDepth(value, "metadata");
  checkStorable(value, "metadata");
  if (byteLength(value) > MAX_METADATA_BYTES) {
    throw invalidRequest(`Field "metadata" must not exceed ${MAX_METADATA_BYTES} bytes of JSON`);
  }
  return value;
}
