import assert from "node:assert/strict";
import { OAuthError } from "../errors.ts";
import { MAX_PROVIDER_RESPONSE_BYTES, providerFetch, providerJson } from "./provider_fetch.ts";

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

Deno.test("providerJson() answers 504 when the provider's deadline passes while its body is read", async () => {
  // Headers and the first byte of the body, then nothing: a provider that stalls mid-answer.
  await using provider = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response(new ReadableStream({ start: (c) => c.enqueue(new Uint8Array([123])) })),
  );
  const res = await providerFetch(fetch, `http://127.0.0.1:${provider.addr.port}/jwks`, {}, 1);
  assert.equal(res.status, 200);
  await assert.rejects(
    providerJson(res, "JWKS"),
    (e) => e instanceof OAuthError && e.status === 504 && e.code === "server_error",
  );
});
