import type { EndpointHealth } from "../../admin/operations.ts";
import { WEBHOOK_EVENT_TYPES } from "../../webhooks/event_types.ts";
import type { DeliveryView } from "../../webhooks/delivery_view.ts";
import { DELIVERY_STATES } from "../../admin/list_queries.ts";
import { CSRF_FIELD } from "../csrf.ts";
import { type Html, html } from "../html.ts";
import { dataTable } from "./data_table.ts";
import { layout, type Notice, type Viewer } from "./layout.ts";
import { parseDeliveryQuery } from "../../admin/list_queries.ts";
import { type ConsoleEnv, doneNotice, filtersOf, type PageRequest } from "../console_context.ts";
import { htmlResponse, redirect } from "../responses.ts";

/** The deliveries page's filters as submitted. */
export type DeliveryFilters = Readonly<Partial<Record<"endpoint" | "type" | "state", string>>>;

/**
 * The webhook deliveries page: each endpoint and whether it is failing, a filter form
 * (endpoint, event type, state) and the matching
 * deliveries, newest first, each with its attempts and, once delivered or failed, a Redeliver
 * button (a CSRF-protected form, like every console change).
 *
 * @param viewer the signed-in operator
 * @param endpoints the configured endpoints with their health (also the filter's choices)
 * @param deliveries one page of deliveries
 * @param filters the filters as submitted
 * @param nextCursor the next page's cursor, if any
 * @param notice a message, if any
 */
export function deliveriesPage(
  viewer: Viewer,
  endpoints: readonly EndpointHealth[],
  deliveries: readonly DeliveryView[],
  filters: DeliveryFilters,
  nextCursor: string | null,
  notice?: Notice,
): Html {
  const select = (
    name: keyof DeliveryFilters,
    label: string,
    options: readonly (readonly [value: string, text: string])[],
  ) =>
    html`<label>${label} <select name="${name}"><option value="">any</option>${
      options.map(([v, t]) =>
        html`<option value="${v}" ${filters[name] === v && html`selected`}>${t}</option>`
      )
    }</select></label>`;
  const next = new URLSearchParams(
    Object.entries(filters).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ""),
  );
  if (nextCursor) next.set("cursor", nextCursor);
  const csrf = html`<input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrf}">`;
  return layout(
    "Webhook deliveries",
    viewer,
    html`
      ${dataTable(
        [{ label: "Endpoint" }, { label: "State" }],
        endpoints.map((e) => [
          e.url,
          e.failing
            ? html`<span class="status failed">failing</span> <small>${e.consecutive_failures} failed attempts in a row</small>`
            : html`<span class="status delivered">ok</span>`,
        ]),
        "No endpoints configured",
        "Endpoints",
      )}
      <form method="get" action="/admin/webhooks" class="card lookup" role="search">
        <fieldset><legend>Filter</legend>
      <div class="fields">
      ${select("endpoint", "Endpoint", endpoints.map((e) => [e.id, e.url] as const))}
      ${select("type", "Event", WEBHOOK_EVENT_TYPES.map((t) => [t, t] as const))}
      ${select("state", "State", DELIVERY_STATES.map((s) => [s, s] as const))}
      </div>
      <button type="submit">Filter</button> <a href="/admin/webhooks">Clear</a>
        </fieldset>
      </form>
      ${dataTable(
        [
          { label: "Created" },
          { label: "Event" },
          { label: "Endpoint" },
          { label: "State" },
          { label: "Attempts" },
          { label: "Action", hidden: true },
        ],
        deliveries.map((d) => [
          html`<time class="nowrap" datetime="${d.created_at}">${
            d.created_at.replace("T", " ").slice(0, 19)
          }</time>`,
          html`<code>${d.type}</code> <code class="id">${d.message_id}</code>`,
          d.url ?? html`<code>${d.endpoint}</code>`,
          html`<span class="status ${d.state}">${d.state}</span>${
            d.next_attempt_at && html`
              <small>next ${d.next_attempt_at.slice(11, 19)}</small>
            `
          }`,
          d.attempts.length === 0
            ? "none yet"
            : html`<ol class="attempts">${
              d.attempts.map((a) =>
                html`<li><time datetime="${a.at}">${a.at.slice(11, 19)}</time> ${
                  a.error ?? `HTTP ${a.status}`
                } <small>${a.duration_ms} ms</small></li>`
              )
            }</ol>`,
          d.state !== "pending" &&
          html`<form method="post" action="/admin/webhooks/deliveries/${d.id}/redeliver">${csrf}
<button type="submit" aria-label="Redeliver ${d.type} ${d.message_id}">Redeliver</button></form>`,
        ]),
        "No deliveries",
        "Newest first",
      )}
      ${nextCursor &&
        html`<p><a class="button" rel="next" href="/admin/webhooks?${next.toString()}">Next page</a></p>`}
    `,
    notice,
  );
}

/** `GET /admin/webhooks`: the endpoints' health and one page of deliveries. */
export async function showDeliveries(
  c: PageRequest,
  { ops }: ConsoleEnv,
): Promise<Response> {
  const q = new URL(c.req.url).searchParams;
  const { query, limit } = parseDeliveryQuery(q);
  const page = await ops.listDeliveries(query, limit);
  return htmlResponse(
    deliveriesPage(
      c.viewer,
      await ops.webhookEndpoints(),
      page.deliveries,
      filtersOf(q, ["endpoint", "type", "state"]),
      page.next_cursor,
      doneNotice(c.req),
    ),
    200,
  );
}

/** `POST /admin/webhooks/deliveries/{id}/redeliver`: queues a delivery again. */
export async function redeliver(
  c: PageRequest,
  { ops }: ConsoleEnv,
): Promise<Response> {
  await ops.redeliver(c.session.operator, c.params.id!);
  return redirect("/admin/webhooks?done=redelivered");
}
