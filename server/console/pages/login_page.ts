import { type Html, html } from "../html.ts";
import { layout, type Notice } from "./layout.ts";

/**
 * The login page: paste an operator token, or (behind the configured mTLS proxy) sign in with
 * the client certificate the proxy verified, by submitting the form empty.
 *
 * @param mtls whether `mtls` is among `internal_api.auth_methods`
 * @param notice why a previous attempt was refused, if it was
 */
export function loginPage(mtls: boolean, notice?: Notice): Html {
  return layout(
    "Sign in",
    undefined,
    html`<form method="post" action="/admin/login" class="card">
<label for="token">Operator token</label>
<p class="hint" id="token-hint">Mint one on the server with <code>token-exchange operator-token --sub NAME</code>.
It is checked as the internal API checks it and is not stored; the session ends with it.</p>
<textarea id="token" name="token" rows="5" autocomplete="off" spellcheck="false"
 aria-describedby="token-hint"${mtls ? "" : " required"}></textarea>
${
      mtls &&
      html`<p class="hint">Behind the mTLS proxy, leave it empty to sign in with your client certificate.</p>`
    }
<button type="submit">Sign in</button>
</form>`,
    notice,
  );
}
