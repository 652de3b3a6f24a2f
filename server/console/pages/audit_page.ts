import type { AuditView } from "../../audit/audit_view.ts";
import { type Html, html } from "../html.ts";
import { dataTable } from "./data_table.ts";
import { layout, type Viewer } from "./layout.ts";
import { parseAuditQuery } from "../../admin/list_queries.ts";
import { type ConsoleEnv, filtersOf, type PageRequest } from "../console_context.ts";
import { htmlResponse } from "../responses.ts";

/** The audit page's filters as submitted (to refill the form and carry to the next page). */
export type AuditFilters = Readonly<
  Partial<Record<"actor" | "action" | "user" | "from" | "to", string>>
>;

/**
 * The audit page: a filter form (actor, action, user, time range) and the matching records,
 * newest first, with a link to the next page that keeps the filters.
 *
 * @param viewer the signed-in operator
 * @param records one page of the trail
 * @param filters the filters as submitted
 * @param nextCursor the next page's cursor, if any
 */
export function auditPage(
  viewer: Viewer,
  records: readonly AuditView[],
  filters: AuditFilters,
  nextCursor: string | null,
): Html {
  const field = (name: keyof AuditFilters, label: string, hint?: string) =>
    html`<label>${label} <input name="${name}" value="${filters[name] ?? ""}" autocomplete="off"
      spellcheck="false" ${hint && html`placeholder="${hint}"`}></label>`;
  const next = new URLSearchParams(
    Object.entries(filters).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ""),
  );
  if (nextCursor) next.set("cursor", nextCursor);
  return layout(
    "Audit trail",
    viewer,
    html`
      <form method="get" action="/admin/audit" class="card lookup" role="search">
        <fieldset><legend>Filter</legend>
      <div class="fields">
      ${field("actor", "Actor")} ${field("action", "Action", "user.update")} ${field(
        "user",
        "User id",
      )}
      ${field("from", "From", "2030-01-31T00:00:00Z")} ${field("to", "To (before)", "2030-02-01")}
      </div>
      <button type="submit">Filter</button> <a href="/admin/audit">Clear</a>
        </fieldset>
      </form>
      ${dataTable(
        [
          { label: "Time" },
          { label: "Actor" },
          { label: "Action" },
          { label: "User" },
          { label: "Details" },
        ],
        records.map((r) => [
          html`<time class="nowrap" datetime="${r.at}">${
            r.at.replace("T", " ").slice(0, 19)
          }</time>`,
          html`<span class="actor">${r.actor.type}</span> ${r.actor.id}`,
          html`<code class="nowrap">${r.action}</code>`,
          r.user === null ? "—" : html`<a class="id" href="/admin/users/${r.user}">${r.user}</a>`,
          html`<ul class="details">${
            Object.entries(r.details).map(([k, v]) =>
              html`<li><span class="k">${k}</span> ${
                typeof v === "string" ? v : JSON.stringify(v)
              }</li>`
            )
          }</ul>`,
        ]),
        "No records",
        "Operator actions and security events, newest first",
      )}
      ${nextCursor &&
        html`<p><a class="button" rel="next" href="/admin/audit?${next.toString()}">Next page</a></p>`}
    `,
  );
}

/** `GET /admin/audit`: one page of the trail, filtered as the query says. */
export async function showAudit(
  c: PageRequest,
  { ops }: ConsoleEnv,
): Promise<Response> {
  const q = new URL(c.req.url).searchParams;
  const { query, limit } = parseAuditQuery(q);
  const page = await ops.listAudit(query, limit);
  const filters = filtersOf(q, ["actor", "action", "user", "from", "to"]);
  return htmlResponse(auditPage(c.viewer, page.records, filters, page.next_cursor), 200);
}
