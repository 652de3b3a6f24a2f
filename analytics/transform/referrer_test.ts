import assert from "node:assert/strict";
import { REFERRER_MAX, storedReferrer } from "./referrer.ts";

Deno.test("storedReferrer() keeps the page, not its query string or fragment", () => {
  assert.equal(
    storedReferrer("https://search.example/?q=my+name&session=abc"),
    "https://search.example/",
  );
  assert.equal(storedReferrer("https://a.example/p#x?y"), "https://a.example/p");
  assert.equal(storedReferrer("https://a.example/posts/one/"), "https://a.example/posts/one/");
  assert.equal(storedReferrer(null), null);
  assert.equal(storedReferrer("?only=query"), null);
});

Deno.test("storedReferrer() bounds hostile values: control characters out, at most 1,000 characters", () => {
  assert.equal(storedReferrer("https://a.example/\u0000\u001b[31mx\n"), "https://a.example/[31mx");
  const long = storedReferrer("https://a.example/" + "a".repeat(10_000))!;
  assert.equal(long.length, REFERRER_MAX);
  assert.equal(storedReferrer("javascript:alert(1)"), "javascript:alert(1)");
});
