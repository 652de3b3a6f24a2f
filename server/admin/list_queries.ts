/**
 * The queries of `GET /internal/audit` and `GET /internal/webhooks/deliveries` (and the
 * console pages showing them), as pure functions: every problem is a 400 `invalid_request`
 * naming the parameter. Paging is that of every list (`parseListQuery`).
 *
 * @module
 */
import { clip, invalidRequest } from "../errors.ts";
import type { AuditQuery } from "../store/audit.ts";
import type { DeliveryQuery, DeliveryState } from "../store/outbox.ts";
import { isStorableText } from "../users/storable_text.ts";
import { WEBHOOK_EVENT_TYPES } from "../webhooks/event_types.ts";
import { parseDeliveryId } from "../webhooks/delivery_view.ts";
import { parseListQuery } from "./user_input.ts";

/** Longest value of a text filter (an operator's subject may be a certificate subject). */
const MAX_FILTER_LENGTH = 1024;

/** Every delivery state, as `state=` names them. */
export const DELIVERY_STATES: readonly DeliveryState[] = ["pending", "delivered", "failed"];

/**
 * Reads `GET /internal/audit`'s query: `actor`, `action`, `user` (exact values), `from` and
 * `to` (ISO 8601 times: `from` inclusive, `to` exclusive), `cursor` and `limit`.
 */
export function parseAuditQuery(q: URLSearchParams): { query: AuditQuery; limit: number } {
  const { after, limit } = parseListQuery(q, "a1");
  const from = time(q, "from");
  const to = time(q, "to");
  const query: AuditQuery = {
    ...(after === undefined ? {} : { before: after }),
    ...text(q, "actor"),
    ...text(q, "action"),
    ...text(q, "user"),
    ...(from === undefined ? {} : { from }),
    ...(to === undefined ? {} : { to }),
  };
  return { query, limit };
}

/**
 * Reads `GET /internal/webhooks/deliveries`' query: `endpoint` (an endpoint id), `type` (an
 * event type), `state` (`pending`, `delivered`, `failed`), `cursor` and `limit`.
 */
export function parseDeliveryQuery(q: URLSearchParams): { query: DeliveryQuery; limit: number } {
  const { after, limit } = parseListQuery(q, "d1");
  const before = after === undefined ? undefined : parseDeliveryId(after);
  if (after !== undefined && before === undefined) {
    throw invalidRequest('Query parameter "cursor" is not a cursor this API issued');
  }
  const type = oneOf(q, "type", WEBHOOK_EVENT_TYPES);
  const state = oneOf(q, "state", DELIVERY_STATES);
  const query: DeliveryQuery = {
    ...(before === undefined ? {} : { before }),
    ...text(q, "endpoint"),
    ...(type === undefined ? {} : { type }),
    ...(state === undefined ? {} : { state }),
  };
  return { query, limit };
}

function text<K extends string>(q: URLSearchParams, name: K): { [k in K]?: string } {
  const v = q.get(name);
  if (v === null || v === "") return {};
  if (v.length > MAX_FILTER_LENGTH || !isStorableText(v)) {
    throw invalidRequest(`Query parameter "${name}" is not a value this API stores`);
  }
  return { [name]: v } as { [k in K]?: string };
}

function oneOf<T extends string>(
  q: URLSearchParams,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const v = q.get(name);
  if (v === null || v === "") return undefined;
  if (!(allowed as readonly string[]).includes(v)) {
    throw invalidRequest(
      `Query parameter "${name}" must be one of ${allowed.join(", ")}; got "${clip(v)}"`,
    );
  }
  return v as T;
}

function time(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === "") return undefined;
  // A full ISO 8601 date-time or date; `Date.parse` alone would take many other shapes.
  const ms = /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(v) ? Date.parse(v) : NaN;
  if (Number.isNaN(ms)) {
    throw invalidRequest(
      `Query parameter "${name}" must be an ISO 8601 time (2030-01-31T12:00:00Z)`,
    );
  }
  return ms;
}
