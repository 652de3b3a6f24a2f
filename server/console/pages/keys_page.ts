import type { StoredKey } from "../../store/keys.ts";
import { DEFAULT_CLI } from "../../deps.ts";
import { type Html, html } from "../html.ts";
import { dataTable } from "./data_table.ts";
import { layout, type Viewer } from "./layout.ts";
import type { ConsoleEnv, PageRequest } from "../console_context.ts";
import { htmlResponse } from "../responses.ts";

/**
 * The signing-keys page: the active key and the keys still published while tokens they
 * signed may be in flight, with `kid`, age and where the private key lives. Rotation is a
 * command (`keys rotate`), not a button: see docs/admin-console.md.
 *
 * @param viewer the signed-in operator
 * @param keys the key ring's entries
 * @param activeKid the kid signing now
 * @param now the current time (ms)
 * @param cli how operators run the program (`deno run -A server/main.ts` from a checkout)
 */
export function keysPage(
  viewer: Viewer,
  keys: readonly StoredKey[],
  activeKid: string,
  now: number,
  cli: string = DEFAULT_CLI,
): Html {
  const rows = keys.filter((k) => k.retire_at === undefined || k.retire_at > now);
  return layout(
    "Signing keys",
    viewer,
    html`
      ${dataTable(
        [
          { label: "kid" },
          { label: "State" },
          { label: "Age" },
          { label: "Private key" },
          { label: "Unpublished at" },
        ],
        rows.map((k) => [
          html`<code>${k.kid}</code>`,
          k.kid === activeKid ? "active" : "retiring",
          age(now - k.created_at),
          k.source,
          k.retire_at === undefined ? "—" : new Date(k.retire_at).toISOString(),
        ]),
        "No key",
      )}
      <p
        class="hint">Rotate with <code>${cli} keys rotate</code> (a store key) or a new <code>keys.private_key_path</code> and a restart (a file key).
      A retiring key stays published until every access token it signed has expired.</p>
    `,
  );
}

/** A duration as the largest whole unit: `3 d`, `5 h`, `12 min`, `40 s`. */
export function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s >= 86400) return `${Math.floor(s / 86400)} d`;
  if (s >= 3600) return `${Math.floor(s / 3600)} h`;
  if (s >= 60) return `${Math.floor(s / 60)} min`;
  return `${s} s`;
}

/** `GET /admin/keys`: the key ring. */
export async function showKeys(
  c: PageRequest,
  { ops, service }: ConsoleEnv,
): Promise<Response> {
  const { keys, activeKid } = await ops.signingKeys();
  return htmlResponse(
    keysPage(c.viewer, keys, activeKid, service.clock.now(), service.cli ?? DEFAULT_CLI),
    200,
  );
}
