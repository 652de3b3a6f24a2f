/**
 * The frame of every console page: head (stylesheet and script served by the service
 * itself), navigation, the logout form, and an optional notice.
 *
 * @module
 */
import { CSRF_FIELD } from "../csrf.ts";
import { type Html, html } from "../html.ts";

/** What the frame shows about the signed-in operator. */
export interface Viewer {
  /** The operator's subject. */
  readonly subject: string;
  /** The session's CSRF token (for the logout form). */
  readonly csrf: string;
}

/** A message above the page's content. */
export interface Notice {
  readonly kind: "ok" | "error";
  readonly text: string;
}

/**
 * A whole page.
 *
 * @param title the page's title (also its `<h1>`)
 * @param viewer the signed-in operator, or `undefined` on the login page
 * @param body the page's content
 * @param notice a message to show first, if any
 */
export function layout(
  title: string,
  viewer: Viewer | undefined,
  body: Html,
  notice?: Notice,
): Html {
  return html`
    <!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>${title} · token-exchange console</title>
        <link rel="icon" href="/admin/assets/icon.svg" type="image/svg+xml">
        <link rel="stylesheet" href="/admin/assets/console.css">
        <script src="/admin/assets/console.js" defer></script>
      </head>
      <body>
        <header>
        <a class="skip" href="#main">Skip to content</a>
        <span class="brand">token-exchange console</span>
        ${viewer && html`
          <nav aria-label="Console">
            <a href="/admin/">Overview</a>
            <a href="/admin/users">Users</a>
            <a href="/admin/keys">Signing keys</a>
            <a href="/admin/webhooks">Webhooks</a>
            <a href="/admin/audit">Audit</a>
          </nav>
          <form method="post" action="/admin/logout" class="logout">
            <input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrf}">
            <span class="who">${viewer.subject}</span>
            <button type="submit">Log out</button>
          </form>
        `}
            </header>
        <main id="main">
        <h1>${title}</h1>
        ${notice &&
          html`<p class="notice ${notice.kind}" role="${
            notice.kind === "error" ? "alert" : "status"
          }">${notice.text}</p>`}
        ${body}
            </main>
      </body>
    </html>
  `;
}
