import type { UserView } from "../../admin/user_view.ts";
import { type Html, html } from "../html.ts";
import { dataTable } from "./data_table.ts";
import { layout, type Notice, type Viewer } from "./layout.ts";

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
          html`<a href="/admin/users/${u.id}">${u.email}</a>`,
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
