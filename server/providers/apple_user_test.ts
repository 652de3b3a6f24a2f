import assert from "node:assert/strict";
import { OAuthError } from "../errors.ts";
import { appleUserDisplayName } from "./apple_user.ts";

function refused(raw: string): void {
  assert.throws(
    () => appleUserDisplayName(raw),
    (e) => e instanceof OAuthError && e.code === "invalid_request",
  );
}

Deno.test("appleUserDisplayName() joins Apple's first and last name", () => {
  const raw = JSON.stringify({
    name: { firstName: " Jane ", lastName: "Appleseed" },
    email: "x@privaterelay.appleid.com",
  });
  assert.equal(appleUserDisplayName(raw), "Jane Appleseed");
  assert.equal(appleUserDisplayName('{"name":{"lastName":"Appleseed"}}'), "Appleseed");
});

Deno.test("appleUserDisplayName() answers nothing for JSON that names no one", () => {
  assert.equal(appleUserDisplayName('{"email":"a@b.example"}'), undefined);
  assert.equal(appleUserDisplayName('{"name":{"firstName":"  "}}'), undefined);
});

Deno.test("appleUserDisplayName() refuses what is not Apple's JSON, or too large", () => {
  refused("Jane");
  refused("[]");
  refused('{"name":"Jane"}');
  refused('{"name":{"firstName":42}}');
  refused('{"email":7}');
  refused(JSON.stringify({ name: { firstName: "Ja\u0000ne" } }));
  refused(JSON.stringify({ name: { firstName: "x".repeat(257) } }));
  refused(JSON.stringify({ name: { firstName: "x" }, pad: "y".repeat(2100) }));
});
