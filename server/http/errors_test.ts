import assert from "node:assert/strict";
import { createMemoryLogger } from "@org/shared";
import { clip, invalidGrant, methodNotAllowed, serverError } from "../errors.ts";
import { errorResponse, startingResponse } from "./errors.ts";

Deno.test("errorResponse() shows an OAuthError's code and description", async () => {
  const { log } = createMemoryLogger();
  const res = errorResponse(invalidGrant("The code expired"), log);
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), {
    error: "invalid_grant",
    error_description: "The code expired",
  });
});

Deno.test("errorResponse() masks unexpected errors as 500 server_error and logs the detail", async () => {
  const { log, lines } = createMemoryLogger();
  const res = errorResponse(new TypeError("db password=hunter2 at line 3"), log);
  assert.equal(res.status, 500);
  const body = await res.json();
  assert.deepEqual(body, {
    error: "server_error",
    error_description: "The server could not complete the request",
  });
  assert.ok(JSON.stringify(lines).includes("hunter2"));
});

Deno.test("errorResponse() keeps provider detail out of 502 and 504 answers", async () => {
  const { log } = createMemoryLogger();
  for (const status of [502, 504] as const) {
    const res = errorResponse(serverError(status, { upstream: "secret detail" }), log);
    assert.equal(res.status, status);
    assert.ok(!(await res.text()).includes("secret detail"));
  }
});

Deno.test("errorResponse() sends the Allow header of a 405", () => {
  const res = errorResponse(methodNotAllowed(["GET", "HEAD"]), createMemoryLogger().log);
  assert.equal(res.status, 405);
  assert.equal(res.headers.get("allow"), "GET, HEAD");
});

Deno.test("startingResponse() is a 503 JSON server_error body with Retry-After", async () => {
  const res = startingResponse();
  assert.equal(res.status, 503);
  assert.match(res.headers.get("content-type") ?? "", /application\/json/);
  assert.equal(res.headers.get("retry-after"), "1");
  assert.deepEqual(await res.json(), {
    error: "server_error",
    error_description: "The service is starting; retry shortly",
  });
});

Deno.test("clip() keeps values up to 64 characters and cuts longer ones with an ellipsis", () => {
  assert.equal(clip("google"), "google");
  assert.equal(clip("x".repeat(64)), "x".repeat(64));
  assert.equal(clip("x".repeat(65)), `${"x".repeat(64)}…`);
  assert.equal(clip("😀".repeat(70)), `${"😀".repeat(64)}…`);
});
