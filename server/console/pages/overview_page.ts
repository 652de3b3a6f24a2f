import { type Html, html } from "../html.ts";
import { dataTable } from "./data_table.ts";
import { layout, type Viewer } from "./layout.ts";
import type { ConsoleEnv, PageRequest } from "../console_context.ts";
import { htmlResponse } from "../responses.ts";

/** What the overview shows. */
export interface Overview {
  /** `GET /internal/stats`: users by status (and `total`), live sessions. */
  readonly users: Readonly<Record<string, number>>;
  readonly liveSessions: number;
  /** Successful token responses by grant, since this process started. */
  readonly issued: Readonly<Record<string, number>>;
  /** Refresh-token reuses detected since this process started. */
  readonly refreshReuse: number;
  /** Provider-token revocations (Sign in with Apple) waiting in the store's queue. */
  readonly revocationsPending: number;
}

/**
 * The overview page: users by status, live sessions, tokens issued, refresh reuse, and
 * provider-token revocations still queued (retried with backoff after a failure).
 *
 * @param viewer the signed-in operator
 * @param o the figures
 */
export function overviewPage(viewer: Viewer, o: Overview): Html {
  const issuedTotal = Object.values(o.issued).reduce((a, b) => a + b, 0);
  return layout(
    "Overview",
    viewer,
    html`
      <section class="tiles" aria-label="Figures">
      ${tile("Users", o.users.total ?? 0, "/admin/users")}
      ${tile("Live sessions", o.liveSessions)}
      ${tile("Tokens issued", issuedTotal)}
      ${tile("Refresh reuse detected", o.refreshReuse)}
      ${tile("Apple revocations pending", o.revocationsPending)}
      </section>
      <section>
        <h2>Users by status</h2>
        ${dataTable(
          [{ label: "Status" }, { label: "Users", numeric: true }],
          Object.entries(o.users).filter(([k]) => k !== "total"),
          "No users",
        )}
      </section>
      <section>
        <h2>Tokens issued by grant</h2>
        <p class="hint">
          Counted by this instance since it started (as <code>/internal/metrics</code> reports them).
        </p>
        ${dataTable(
          [{ label: "Grant" }, { label: "Tokens", numeric: true }],
          Object.entries(o.issued),
          "None yet",
        )}
      </section>
    `,
  );
}

function tile(label: string, value: number, href?: string): Html {
  const inner = html`<span class="value">${value}</span><span class="label">${label}</span>`;
  return href
    ? html`<a class="tile" href="${href}">${inner}</a>`
    : html`<div class="tile">${inner}</div>`;
}

/** `GET /admin/`: the overview, from the API's stats and this process's token counts. */
export async function showOverview(
  c: PageRequest,
  { ops, service }: ConsoleEnv,
): Promise<Response> {
  const stats = await ops.stats();
  const counts = service.metrics.tokenCounts();
  return htmlResponse(
    overviewPage(c.viewer, {
      users: stats.users,
      liveSessions: stats.sessions.live,
      issued: counts.issued,
      refreshReuse: counts.refreshReuse,
      revocationsPending: stats.provider_revocations.pending,
    }),
    200,
  );
}
