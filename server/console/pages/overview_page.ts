import { type Html, html } from "../html.ts";
import { layout, type Viewer } from "./layout.ts";

/** What the overview shows. */
export interface Overview {
  /** `GET /internal/stats`: users by status (and `total`), live sessions. */
  readonly users: Readonly<Record<string, number>>;
  readonly liveSessions: number;
  /** Successful token responses by grant, since this process started. */
  readonly issued: Readonly<Record<string, number>>;
  /** Refresh-token reuses detected since this process started. */
  readonly refreshReuse: number;
}

/**
 * The overview page: users by status, live sessions, tokens issued, refresh reuse.
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
      </section>
      <section>
        <h2>Users by status</h2>
        <table>
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col" class="num">Users</th>
            </tr>
          </thead>
          <tbody>
      ${Object.entries(o.users).filter(([k]) => k !== "total").map(([k, n]) =>
        html`
          <tr>
            <td>${k}</td>
            <td class="num">${n}</td>
          </tr>
        `
      )}
          </tbody>
        </table>
      </section>
      <section>
        <h2>Tokens issued by grant</h2>
        <p
          class="hint">Counted by this instance since it started (as <code>/internal/metrics</code> reports them).</p>
        <table>
          <thead>
            <tr>
              <th scope="col">Grant</th>
              <th scope="col" class="num">Tokens</th>
            </tr>
          </thead>
          <tbody>
      ${Object.keys(o.issued).length === 0
        ? html`
          <tr>
            <td colspan="2">None yet</td>
          </tr>
        `
        : Object.entries(o.issued).map(([g, n]) =>
          html`
            <tr>
              <td>${g}</td>
              <td class="num">${n}</td>
            </tr>
          `
        )}
          </tbody>
        </table>
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
