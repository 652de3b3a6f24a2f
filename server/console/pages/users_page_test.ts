import assert from "node:assert/strict";
import type { UserView } from "../../users/user_view.ts";
import { usersPage } from "./users_page.ts";
import { confirmDeletePage, userPage } from "./user_page.ts";

const VIEWER = { subject: "alice", csrf: "c".repeat(43) };

function user(fields: Partial<UserView>): UserView {
  return {
    id: "01J9ZQ4S8Y2N7F3K5M6P8R0T1V",
    external_id: "ext-1",
    provider: "atproto",
    email: "",
    display_name: "",
    status: "active",
    metadata: {},
    claims: {},
    created_at: "2026-01-01T00:00:00.000Z",
    updated_at: "2026-01-01T00:00:00.000Z",
    ...fields,
  };
}

Deno.test("usersPage(): a user without email is linked by name, one without either by id", () => {
  const page = usersPage(VIEWER, {
    users: [
      user({ id: "A1", email: "ann@example.com", display_name: "Ann" }),
      user({ id: "B2", display_name: "Bob" }),
      user({ id: "C3" }),
    ],
    nextCursor: null,
    complete: true,
  }).toString();
  assert.match(page, /<a href="\/admin\/users\/A1">ann@example\.com<\/a>/);
  assert.match(page, /<a href="\/admin\/users\/B2">Bob<\/a>/);
  assert.match(page, /<a href="\/admin\/users\/C3">C3<\/a>/);
  assert.doesNotMatch(page, /<a href="\/admin\/users\/[^"]+"><\/a>/);
});

Deno.test("userPage(): the heading names the user whatever the provider shared", () => {
  const detail = (u: UserView) => ({ user: u, sessions: [], accessClaims: {} });
  const heading = (u: UserView) =>
    /<h1>([^<]*)<\/h1>/.exec(userPage(VIEWER, detail(u)).toString())?.[1];
  assert.equal(heading(user({ display_name: "Bob", email: "bob@example.com" })), "Bob");
  assert.equal(heading(user({ email: "bob@example.com" })), "bob@example.com");
  assert.equal(heading(user({ id: "C3" })), "C3");
  assert.match(
    confirmDeletePage(VIEWER, user({ id: "C3" })).toString(),
    /Delete <strong>C3<\/strong>/,
  );
});
