import type { SessionView } from "../../admin/operations.ts";
import { userLabel, type UserView } from "../../users/user_view.ts";
import { CSRF_FIELD } from "../csrf.ts";
import { type Html, html } from "../html.ts";
import { dataTable } from "./data_table.ts";
import { layout, type Notice, type Viewer } from "./layout.ts";
import { parseClaims, parseJsonObject } from "../../admin/user_input.ts";
import { OAuthError } from "../../errors.ts";
import { type ConsoleEnv, doneNotice, type PageRequest } from "../console_context.ts";
import { htmlResponse, redirect } from "../responses.ts";

/** Everything the user page shows. */
export interface UserDetail {
  readonly user: UserView;
  readonly sessions: readonly SessionView[];
  /** The claims an access token issued now would carry. */
  readonly accessClaims: Readonly<Record<string, unknown>>;
  /** The claims editor's text: the stored claims, or what was submitted when it was refused. */
  readonly claimsText?: string;
}

/**
 * The user page: fields, metadata, the private-claims editor, the access-token preview, live
 * sessions with a revoke button each, suspend / reactivate, and the link to soft delete.
 *
 * @param viewer the signed-in operator
 * @param d what to show
 * @param notice a message, if any
 */
export function userPage(viewer: Viewer, d: UserDetail, notice?: Notice): Html {
  const u = d.user;
  const csrf = html`<input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrf}">`;
  const base = `/admin/users/${u.id}`;
  const deleted = u.status === "Deleted";
  return layout(
    // The name an operator knows the user by; the email stays a field below.
    u.display_name.trim() || userLabel(u),
    viewer,
    html`
      <section aria-labelledby="fields-h">
        <h2 id="fields-h">Fields</h2>
        <dl class="fields">
          <dt>Id</dt>
          <dd><code>${u.id}</code></dd>
          <dt>Email</dt>
          <dd>${u.email}</dd>
          <dt>Display name</dt>
          <dd>${u.display_name}</dd>
          <dt>Provider</dt>
          <dd>${u.provider}</dd>
          <dt>External id</dt>
          <dd><code>${u.external_id}</code></dd>
          <dt>Status</dt>
          <dd><span class="status ${u.status}">${u.status}</span></dd>
          <dt>Created</dt>
          <dd>${u.created_at}</dd>
          <dt>Updated</dt>
          <dd>${u.updated_at}</dd>
        </dl>
        <div class="actions">
      ${!deleted && html`<form method="post" action="${base}/status">${csrf}
<input type="hidden" name="status" value="${u.status === "active" ? "suspended" : "active"}">
<button type="submit">${u.status === "active" ? "Suspend" : "Reactivate"}</button>
</form>
<a class="button danger" href="${base}/delete">Delete…</a>`}
        </div>
      </section>
      <section aria-labelledby="sessions-h">
        <h2 id="sessions-h">Live sessions</h2>
        ${dataTable(
          [{ label: "Session" }, { label: "Started" }, { label: "Ends" }, {
            label: "Action",
            hidden: true,
          }],
          d.sessions.map((s) => [
            html`<code>${s.id}</code>`,
            s.created_at,
            s.expires_at,
            html`<form method="post" action="${base}/sessions/${s.id}/revoke">${csrf}
<button type="submit" aria-label="Revoke session ${s.id}">Revoke</button></form>`,
          ]),
          "No live session",
        )}
      </section>
      <section aria-labelledby="claims-h">
        <h2 id="claims-h">Private claims</h2>
        <form method="post" action="${base}/claims" class="claims-editor">${csrf}
      <label for="claims">Claims (a JSON object; replaces the stored claims)</label>
      <textarea id="claims" name="claims" rows="8" spellcheck="false" data-json-object aria-describedby="claims-msg">${d
        .claimsText ?? JSON.stringify(u.claims, null, 2)}</textarea>
      <p id="claims-msg" class="hint" aria-live="polite"></p>
      <button type="submit">Save claims</button>
        </form>
      </section>
      <section aria-labelledby="preview-h">
        <h2 id="preview-h">An access token issued now would carry</h2>
        <p
          class="hint"><code>token.custom_claims</code> rendered for this user, then the private claims (which win on equal names), then the registered claims.</p>
        <pre class="json">${JSON.stringify(d.accessClaims, null, 2)}</pre>
      </section>
      <section aria-labelledby="meta-h">
        <h2 id="meta-h">Metadata</h2>
        <pre class="json">${JSON.stringify(u.metadata, null, 2)}</pre>
      </section>
    `,
    notice,
  );
}

/**
 * The confirmation page of a soft delete, naming the user.
 *
 * @param viewer the signed-in operator
 * @param u the user
 */
export function confirmDeletePage(viewer: Viewer, u: UserView): Html {
  return layout(
    "Delete user",
    viewer,
    html`
      <form method="post" action="/admin/users/${u.id}/delete" class="card">
        <input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrf}">
        <p>Delete <strong>${userLabel(u)}</strong> (<code>${u.id}</code>, ${u.provider})?</p>
        <p
          class="hint">The user is marked <code>Deleted</code>: every session ends now, and sign-in and refresh are refused. The record stays in the store.</p>
        <button type="submit" class="danger">Delete ${userLabel(u)}</button>
        <a href="/admin/users/${u.id}">Cancel</a>
      </form>
    `,
  );
}

/** `GET /admin/users/{id}`: the user, after a change with its notice. */
export function showUser(c: PageRequest, env: ConsoleEnv): Promise<Response> {
  return userDetail(c, env, doneNotice(c.req));
}

/**
 * `POST /admin/users/{id}/claims`: replaces the user's claims; bad JSON or claims the API
 * refuses show the page again with the text as typed.
 */
export async function saveClaims(
  c: PageRequest,
  env: ConsoleEnv,
): Promise<Response> {
  const text = c.form.get("claims") ?? "";
  try {
    JSON.parse(text);
  } catch {
    return userDetail(c, env, { kind: "error", text: "The claims are not valid JSON." }, text, 400);
  }
  try {
    const claims = parseClaims(parseJsonObject(text), "body");
    await env.ops.replaceClaims(c.session.operator, c.params.id!, claims);
  } catch (err) {
    if (!(err instanceof OAuthError) || err.status !== 400) throw err;
    return userDetail(c, env, { kind: "error", text: err.description }, text, 400);
  }
  return redirect(`/admin/users/${c.params.id}?done=claims`);
}

/** `POST /admin/users/{id}/status`: suspends or reactivates the user. */
export async function setStatus(
  c: PageRequest,
  { ops }: ConsoleEnv,
): Promise<Response> {
  const status = c.form.get("status");
  if (status !== "active" && status !== "suspended") {
    throw new OAuthError("invalid_request", 400, "The status must be active or suspended");
  }
  await ops.patchUser(c.session.operator, c.params.id!, { status });
  return redirect(`/admin/users/${c.params.id}?done=${status}`);
}

/** `GET /admin/users/{id}/delete`: asks to confirm the deletion. */
export async function confirmDelete(
  c: PageRequest,
  { ops }: ConsoleEnv,
): Promise<Response> {
  const user = await ops.getUser(c.params.id!);
  return htmlResponse(confirmDeletePage(c.viewer, user), 200);
}

/** `POST /admin/users/{id}/delete`: deletes the user. */
export async function deleteUser(
  c: PageRequest,
  { ops }: ConsoleEnv,
): Promise<Response> {
  await ops.deleteUser(c.session.operator, c.params.id!);
  return redirect(`/admin/users/${c.params.id}?done=deleted`);
}

/** `POST /admin/users/{id}/sessions/{sid}/revoke`: revokes one of the user's sessions. */
export async function revokeSession(
  c: PageRequest,
  { ops }: ConsoleEnv,
): Promise<Response> {
  await ops.revokeSession(c.session.operator, c.params.id!, c.params.sid!);
  return redirect(`/admin/users/${c.params.id}?done=revoked`);
}

/** The user page with its sessions and the claims an access token would carry now. */
async function userDetail(
  c: PageRequest,
  { ops }: ConsoleEnv,
  notice?: Notice,
  claimsText?: string,
  status = 200,
): Promise<Response> {
  const id = c.params.id!;
  const user = await ops.getUser(id);
  const live = await ops.listSessions(id);
  const accessClaims = await ops.previewAccessClaims(id);
  return htmlResponse(
    userPage(c.viewer, {
      user,
      sessions: live,
      accessClaims,
      ...(claimsText === undefined ? {} : { claimsText }),
    }, notice),
    status,
  );
}
