/**
 * `[hooks.access_token]`: the app's own service, called on every grant that issues an access
 * token to add claims to it (`hooks/access_token_hook.ts`). Its URL and secret follow the
 * webhooks' rules (the same readers), so one operator habit covers both.
 *
 * @module
 */
import { isTable, type TableReader } from "./reader.ts";
import type { HooksConfig } from "./schema.ts";
import { readEndpointUrl, readSigningSecret } from "./webhooks.ts";

/** Seconds the service waits for the hook by default, and at most. */
export const HOOK_TIMEOUT = { default: 2, max: 10 } as const;

/**
 * Reads `[hooks]` (today one hook, `access_token`).
 *
 * @param h the `hooks` table
 * @param raw the `hooks` table as written in the file (the secret must be a `${VAR}` there)
 * @returns the hooks configured; `access_token` absent when the section is
 */
export function readHooks(h: TableReader, raw: unknown): HooksConfig {
  if (h.raw("access_token") === undefined) {
    h.done();
    return {};
  }
  const a = h.table("access_token");
  h.done();
  const url = readEndpointUrl(a);
  const rawHook = isTable(raw) ? raw.access_token : undefined;
  const secret = readSigningSecret(a, rawHook);
  const timeout = a.duration("timeout", HOOK_TIMEOUT.default, 1, HOOK_TIMEOUT.max);
  const failure_policy = a.oneOf("failure_policy", ["deny", "allow"] as const, "deny");
  a.done();
  if (url === undefined || secret === undefined) return {};
  return { access_token: { url, secret, timeout, failure_policy } };
}
