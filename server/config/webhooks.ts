/**
 * `[webhooks]`: the endpoints that receive signed events (`[[webhooks.endpoints]]`), read and
 * checked here so a hostile or careless config is refused at startup with every reason at once.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { isTable, TableReader } from "./reader.ts";
import type { WebhookEndpointConfig, WebhooksConfig } from "./schema.ts";
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from "../webhooks/event_types.ts";
import { isAllowedIssuerUrl } from "./url_rules.ts";

/** How long delivered and failed deliveries are kept with their attempts (s): 30 days. */
export const DEFAULT_DELIVERY_RETENTION = 30 * 86400;

/** Fewest secret bytes an endpoint's HMAC key may have (Standard Webhooks: 24 to 64). */
export const MIN_WEBHOOK_SECRET_BYTES = 24;

/**
 * Reads `[webhooks]`.
 *
 * @param wh the `webhooks` table
 * @param raw the `webhooks` table as written in the file, before `${VAR}` was replaced: a
 *   secret must be a placeholder there, so it never sits in the file itself
 */
export function readWebhooks(wh: TableReader, raw: unknown): WebhooksConfig {
  const list = wh.raw("endpoints");
  const retention = wh.duration("retention", DEFAULT_DELIVERY_RETENTION, 1);
  wh.done();
  if (list === undefined) return { endpoints: [], retention };
  if (!Array.isArray(list)) {
    wh.issue("endpoints", "must be a list of tables ([[webhooks.endpoints]])");
    return { endpoints: [], retention };
  }
  const rawList = isTable(raw) && Array.isArray(raw.endpoints) ? raw.endpoints : [];
  const endpoints: WebhookEndpointConfig[] = [];
  const seen = new Set<string>();
  list.forEach((item, i) => {
    const e = new TableReader(
      item,
      wh.at(`endpoints[${i}]`),
      wh.issues,
      wh.fromEnv,
    );
    const url = readEndpointUrl(e);
    const secret = readSigningSecret(e, rawList[i]);
    const events = readEvents(e);
    e.done();
    if (url !== undefined && seen.has(url)) e.issue("url", "is already another endpoint's url");
    if (url === undefined || secret === undefined || events === undefined) return;
    seen.add(url);
    endpoints.push({ id: endpointId(url), url, secret, events });
  });
  return { endpoints, retention };
}

/** The stable id of the endpoint at `url`: the outbox's queue name, kept across restarts. */
export function endpointId(url: string): string {
  return "whe_" + createHash("sha256").update(url).digest("base64url").slice(0, 22);
}

/**
 * Reads the `url` of something the service calls and signs for (a webhook endpoint, the
 * access-token hook): required, `https` (plain `http` only to a loopback host, the providers'
 * rule), without credentials.
 *
 * @returns the URL, or `undefined` after recording the issue on `e`
 */
export function readEndpointUrl(e: TableReader): string | undefined {
  const value = e.string("url", undefined);
  if (value === undefined) {
    e.issue("url", "is required");
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    e.issue("url", `"${value}" is not a URL`);
    return undefined;
  }
  if (!isAllowedIssuerUrl(url)) {
    e.issue("url", `"${value}" must use https (plain http only to a loopback host)`);
    return undefined;
  }
  if (url.username || url.password) {
    e.issue("url", "must not carry credentials (events are signed with `secret`)");
    return undefined;
  }
  return value;
}

/**
 * Reads a Standard Webhooks signing `secret`: required, written in the file as a `"${VAR}"`
 * placeholder (never the secret itself), `whsec_`-prefixed base64 or plain text, at least
 * {@linkcode MIN_WEBHOOK_SECRET_BYTES} bytes.
 *
 * @param e the table holding `secret`
 * @param rawEndpoint the same table as written in the file, before `${VAR}` was replaced
 * @returns the key bytes, or `undefined` after recording the issue on `e`
 */
export function readSigningSecret(e: TableReader, rawEndpoint: unknown): Uint8Array | undefined {
  const value = e.string("secret", undefined);
  if (value === undefined || value === "") {
    e.issue("secret", 'is required: "${VAR}" naming an environment variable');
    return undefined;
  }
  const written = isTable(rawEndpoint) ? rawEndpoint.secret : undefined;
  if (typeof written === "string" && !/^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(written.trim())) {
    e.issue("secret", 'must be a "${VAR}" placeholder, not the secret itself');
    return undefined;
  }
  let bytes: Uint8Array;
  if (value.startsWith("whsec_")) {
    try {
      bytes = Uint8Array.from(atob(value.slice("whsec_".length)), (c) => c.charCodeAt(0));
    } catch {
      e.issue("secret", "is not valid base64 after whsec_");
      return undefined;
    }
  } else {
    bytes = new TextEncoder().encode(value);
  }
  if (bytes.length < MIN_WEBHOOK_SECRET_BYTES) {
    e.issue("secret", `must be at least ${MIN_WEBHOOK_SECRET_BYTES} bytes, got ${bytes.length}`);
    return undefined;
  }
  return bytes;
}

function readEvents(e: TableReader): readonly WebhookEventType[] | undefined {
  const events = e.stringList("events", WEBHOOK_EVENT_TYPES);
  if (events.length === 0) {
    e.issue("events", "must name at least one event (omit it for every event)");
    return undefined;
  }
  const unknown = events.filter((t) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(t));
  if (unknown.length > 0) {
    e.issue(
      "events",
      `unknown event ${unknown.map((t) => `"${t}"`).join(", ")}; known: ${
        WEBHOOK_EVENT_TYPES.join(", ")
      }`,
    );
    return undefined;
  }
  return events as WebhookEventType[];
}
