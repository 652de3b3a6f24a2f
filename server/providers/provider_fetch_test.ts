import assert from "node:assert/strict";
import { OAuthError } from "../errors.ts";
import { MAX_PROVIDER_RESPONSE_BYTES, providerJson } from "./provider_fetch.ts";

const json = (body: string, headers: Record<string, string> = {}) =>
  new Response(body, { headers: { "content-type": "application/json", ...headers } });

Deno.test("providerJson() reads a JSON object", async () => {
  assert.deepEqual(await providerJson(json('{"issuer":"x"}'), "discovery document"), {
    issuer: "x",
  });
});

Deno.test("providerJson() refuses an answer past 256 KiB as a 502, declared or streamed", async () => {
  const big = `{"x":"${"a".repeat(MAX_PROVIDER_RESPONSE_BYTES)}"}`;
  const streamed = new Response(
    new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(big));
        c.close();
      },
    }),
  );
  for (const res of [json(big, { "content-length": String(big.length) }), streamed]) {
    await assert.rejects(
      providerJson(res, "JWKS"),
      (e) => e instanceof OAuthError && e.status === 502 && e.code === "server_error",
    );
  }
});

Deno.test("providerJson() refuses what is not a JSON object as a 502", async () => {
  for (const body of ["not json", "[1]", "null", "\u00ff"]) {
    await assert.rejects(
      providerJson(json(body), "token response"),
      (e) => e instanceof OAuthError && e.status === 502,
    );
  }
});
