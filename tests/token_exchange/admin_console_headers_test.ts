/**
 * The console's security headers on every answer under `/admin`, as docs/admin-console.md
 * promises: its pages, and the router's own 404 and 405.
 */
import assert from "node:assert/strict";
import { CONSOLE_HEADERS } from "../../server/console/responses.ts";
import { internalToml } from "../support/internal_api.ts";
import { startTokenServer } from "../support/token_server.ts";

Deno.test("admin console: unknown paths (404) and wrong methods (405) carry the console's headers", async () => {
  await using te = await startTokenServer({ toml: internalToml() });
  const cases: Array<[string, string, number]> = [
    ["GET", "/admin/nope", 404],
    ["GET", "/admin/users/usr_x/nope", 404],
    ["PUT", "/admin/login", 405],
    ["DELETE", "/admin/users/usr_x", 405],
  ];
  for (const [method, path, status] of cases) {
    const res = await fetch(`${te.internalUrl}${path}`, { method });
    await res.body?.cancel();
    assert.equal(res.status, status, `${method} ${path}`);
    assert.equal(res.headers.get("x-frame-options"), "DENY", `${method} ${path}`);
    assert.equal(res.headers.get("x-content-type-options"), "nosniff", `${method} ${path}`);
    assert.equal(
      res.headers.get("content-security-policy"),
      CONSOLE_HEADERS["content-security-policy"],
      `${method} ${path}`,
    );
    assert.ok(res.headers.get("x-request-id"));
  }
  // The 405 still says which methods the path takes.
  const put = await fetch(`${te.internalUrl}/admin/login`, { method: "PUT" });
  await put.body?.cancel();
  assert.equal(put.headers.get("allow"), "GET, HEAD, POST");
  // The API's own answers are not the console's.
  const api = await fetch(`${te.internalUrl}/internal/nope`);
  await api.body?.cancel();
  assert.equal(api.headers.get("x-frame-options"), null);
});
