import assert from "node:assert/strict";
import { createMemoryLogger } from "@org/shared";
import { slowDown } from "../errors.ts";
import { errorResponse } from "./errors.ts";
import { emptyResponse, jsonResponse, TOKEN_HEADERS } from "./json_response.ts";

const headersOf = (res: Response) => Object.fromEntries(res.headers);

Deno.test("jsonResponse() answers the same as Response.json with the headers in its init", async () => {
  const body = { access_token: "a.b.c", token_type: "Bearer", expires_in: 900 };
  const ours = jsonResponse(body, 200, TOKEN_HEADERS);
  const reference = Response.json(body, {
    headers: { "Cache-Control": "no-store", Pragma: "no-cache" },
  });
  assert.equal(ours.status, 200);
  assert.deepEqual(headersOf(ours), headersOf(reference));
  assert.deepEqual(headersOf(ours), {
    "cache-control": "no-store",
    "content-type": "application/json",
    "pragma": "no-cache",
  });
  assert.equal(await ours.text(), await reference.text());
});

Deno.test("jsonResponse() sets the status and lets extra headers through", () => {
  const res = jsonResponse({ x: 1 }, 429, { "cache-control": "no-store" }, { "Retry-After": "3" });
  assert.equal(res.status, 429);
  assert.equal(res.headers.get("retry-after"), "3");
  assert.equal(res.headers.get("cache-control"), "no-store");
  assert.equal(res.headers.get("content-type"), "application/json");
});

Deno.test("errorResponse() keeps its headers: no-store, no Pragma, the error's own headers", async () => {
  const res = errorResponse(slowDown("wait", 7), createMemoryLogger().log);
  assert.equal(res.status, 429);
  assert.deepEqual(headersOf(res), {
    "cache-control": "no-store",
    "content-type": "application/json",
    "retry-after": "7",
  });
  assert.deepEqual(await res.json(), { error: "slow_down", error_description: "wait" });
});

Deno.test("emptyResponse() has no body and the given headers", async () => {
  const res = emptyResponse(200, TOKEN_HEADERS);
  assert.equal(res.status, 200);
  assert.equal(await res.text(), "");
  assert.equal(res.headers.get("content-type"), null);
  assert.equal(res.headers.get("pragma"), "no-cache");
});
