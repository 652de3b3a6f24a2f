import assert from "node:assert/strict";
import { createMemoryLogger } from "@org/shared";
import { readForm } from "./body.ts";
import { errorResponse, OAuthError } from "./errors.ts";

/** A form request whose body sends `first` and then fails, like a client disconnecting. */
function brokenRequest(first: string): Request {
  let sent = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sent) {
        sent = true;
        controller.enqueue(new TextEncoder().encode(first));
      } else controller.error(new Error("connection reset by peer"));
    },
  });
  return new Request("http://127.0.0.1/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body,
  });
}

Deno.test("readForm(): a body that errors mid-read is 400 invalid_request, logged at debug, not a 500", async () => {
  let thrown: unknown;
  try {
    await readForm(brokenRequest("grant_type=refresh_token&refresh_"));
  } catch (err) {
    thrown = err;
  }
  assert.ok(thrown instanceof OAuthError);
  assert.deepEqual([thrown.status, thrown.code], [400, "invalid_request"]);
  const { log, lines } = createMemoryLogger();
  const res = errorResponse(thrown, log);
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), {
    error: "invalid_request",
    error_description: "The request body could not be read",
  });
  assert.deepEqual(lines.map((l) => l.level), ["debug"]);
});

Deno.test("readForm(): a repeated parameter's name is echoed at most 64 characters long", async () => {
  const name = "p".repeat(5000);
  const req = new Request("http://127.0.0.1/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: `${name}=1&${name}=2`,
  });
  await assert.rejects(readForm(req), (err: unknown) => {
    assert.ok(err instanceof OAuthError);
    assert.equal(err.description, `Parameter ${"p".repeat(64)}… is repeated`);
    return true;
  });
});
