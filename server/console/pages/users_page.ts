import { userLabel, type UserView } from "../../users/user_view.ts";
import { type Html, html } from "../html.ts";
import { dataTable } from "./data_table.ts";
import { layout, type Notice, type Viewer } from "./layout.ts";
import type { UserLookup } from "../../admin/user_lookup.ts";
import { parseListQuery } from "../../admin/user_input.ts";
import type { ConsoleEnv, PageRequest } from "../console_context.ts";
import { htmlResponse } from "../responses.ts";

/** What the users page shows: one page of the list, or the result of a look-up. */
export interface UsersListing {
  readonly users: readonly UserView[];
  /** The next page's cursor (list mode), if any. */
  readonly nextCursor: string | null;
  /** The look-up's fields as submitted (look-up mode), to refill the form. */
  readonly query?: Readonly<Record<string, string>>;
  /** False when an email look-up stopped before reading every user. */
  readonly complete: boolean;
}

/**
 * The users page: the look-up form (exact email, provider and external id, or id) and a
 * table of users linking to each.
 *
 * @param viewer the signed-in operator
 * @param listing the users to show
 * @param notice a message, if any
 */
export function usersPage(viewer: Viewer, listing: UsersListing, notice?: Notice): Html {
  const q = listing.query ?? {};
  return layout(
    "Users",
    viewer,
    html`
      <form method="get" action="/admin/users" class="card lookup" role="search">
        <fieldset><legend>Look up a user</legend>
      <div class="fields">
      <label>Email <input type="email" name="email" value="${q.email ??
        ""}" autocomplete="off"></label>
      <label>Provider <input name="provider" value="${q.provider ?? ""}" autocomplete="off"></label>
      <label>External id <input name="external_id" value="${q.external_id ??
        ""}" autocomplete="off"></label>
      <label>User id <input name="id" value="${q.id ??
        ""}" autocomplete="off" spellcheck="false"></label>
      </div>
      <button type="submit">Look up</button> ${listing.query &&
        html`<a href="/admin/users">Show all</a>`}
        </fieldset>
      </form>
      ${!listing.complete &&
        html`
          <p class="notice error"
            role="status">The email look-up stopped after reading its limit of users; look up by provider and external id to be sure.</p>
        `}
      ${dataTable(
        [
          { label: "Email" },
          { label: "Name" },
          { label: "Provider" },
          { label: "Status" },
          { label: "Created" },
        ],
        listing.users.map((u) => [
          html`<a href="/admin/users/${u.id}">${userLabel(u)}</a>`,
          u.display_name,
          u.provider,
          html`<span class="status ${u.status}">${u.status}</span>`,
          u.created_at.slice(0, 10),
        ]),
        "No users",
        listing.query ? "Matches" : "All users, oldest first",
      )}
      ${listing.nextCursor &&
        html`<p><a class="button" rel="next" href="/admin/users?cursor=${listing.nextCursor}">Next page</a></p>`}
    `,
    notice,
  );
}

/** `GET /admin/users`: one page of the list, or the look-up the query asks for. */
export async function showUsers(
  c: PageRequest,
  { ops }: ConsoleEnv,
): Promise<Response> {
  const q = new URL(c.req.url).searchParams;
  const lookup = lookupOf(q);
  if (lookup === undefined) {
    const cursor = q.get("cursor");
    const { after, limit } = parseListQuery(new URLSearchParams(cursor ? { cursor } : {}));
    const page = await ops.listUsers(after, limit);
    return htmlResponse(
      usersPage(c.viewer, { users: page.users, nextCursor: page.next_cursor, complete: true }),
      200,
    );
  }
  const found = await ops.findUsers(lookup.q);
  return htmlResponse(
    usersPage(c.viewer, {
      users: found.users,
      nextCursor: null,
      query: lookup.fields,
      complete: found.complete,
    }),
    200,
  );
}

/** The look-up the users page's query asks for, if any (the first field filled decides). */
function lookupOf(
  q: URLSearchParams,
): { q: UserLookup; fields: Record<string, string> } | undefined {
  const get = (k: string) => (q.get(k) ?? "").trim();
  const [email, provider, externalId, id] = [
    get("email"),
    get("provider"),
    get("external_id"),
    get("id"),
  ];
  const fields = { email, provider, external_id: externalId, id };
  if (id !== "") return { q: { by: "id", id }, fields };
  if (provider !== "" || externalId !== "") {
    return { q: { by: "external", provider, externalId }, fields };
  }
  if (email !== "") return { q: { by: "email", email }, fields };
  return undefined;
}
