import assert from "node:assert/strict";
import { invalidationCallerReference } from "./send_invalidation.ts";

Deno.test("invalidationCallerReference() changes with the sync's changes, not only with the paths", () => {
  const paths = ["/index.html", "/"];
  const first = invalidationCallerReference("3f2a1b9c8d7e-dirty", paths, "digest-1");
  const second = invalidationCallerReference("3f2a1b9c8d7e-dirty", paths, "digest-2");
  assert.notEqual(first, second);
  assert.equal(invalidationCallerReference("3f2a1b9c8d7e-dirty", paths, "digest-1"), first);
  assert.match(first, /^3f2a1b9c8d7e-dirty-[0-9a-f]{16}$/);
});
