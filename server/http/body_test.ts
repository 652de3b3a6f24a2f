import assert from "node:assert/strict";
import { createMemoryLogger } from "@org/shared";
import { OAuthError } from "../errors.ts";
import { errorResponse } from "./errors.ts";
import { parseForm, readCapped, readForm } from "./body.ts";

const FORM = "application/x-www-form-urlencoded";

function streamOf(...chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk);
      c.close();
    },
  });
}

function post(body: BodyInit, headers: Record<string, string>): Request {
  return new Request("http://127.0.0.1/token", { method: "POST", body, headers });
}

async function refused(p: Promise<unknown>, status: number): Promise<void> {
  await assert.rejects(p, (e) => e instanceof OAuthError && e.status === status);
}

Deno.test("readForm(): a body with content-length is parsed into single-valued parameters", async () => {
  const body = "grant_type=refresh_token&refresh_token=a%2Bb";
  const params = await readForm(post(body, { "content-type": FORM, "content-length": "44" }));
  assert.deepEqual([...params], [["grant_type", "refresh_token"], ["refresh_token", "a+b"]]);
});

Deno.test("readForm(): a chunked body (no content-length) is read across chunks", async () => {
  const enc = new TextEncoder();
  const req = post(streamOf(enc.encode("grant_type=refresh"), enc.encode("_token&x=1")), {
    "content-type": `${FORM}; charset=utf-8`,
  });
  assert.deepEqual([...await readForm(req)], [["grant_type", "refresh_token"], ["x", "1"]]);
});

Deno.test("readForm(): a repeated parameter or another content type is invalid_request", async () => {
  await refused(readForm(post("a=1&a=2", { "content-type": FORM, "content-length": "7" })), 400);
  await refused(readForm(post("{}", { "content-type": "application/json" })), 400);
});

Deno.test("readCapped(): over the cap is 413, declared or streamed", async () => {
  await refused(readCapped(post("x".repeat(11), { "content-length": "11" }), 10), 413);
  // A lying content-length on an in-process request is still caught after the read.
  await refused(readCapped(post("x".repeat(11), { "content-length": "5" }), 10), 413);
  const chunk = new Uint8Array(6).fill(120);
  await refused(readCapped(post(streamOf(chunk, chunk), {}), 10), 413);
});

Deno.test("readCapped(): a body that is not UTF-8 is invalid_request, on both paths", async () => {
  const bad = new Uint8Array([0x61, 0xff, 0x62]);
  await refused(readCapped(post(bad, { "content-length": "3" }), 10), 400);
  await refused(readCapped(post(streamOf(bad), {}), 10), 400);
  // The shared decoder is not left in a broken state by a failure.
  assert.equal(await readCapped(post("ok", { "content-length": "2" }), 10), "ok");
});

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

Deno.test("readForm(): a body with a declared length that errors mid-read is 400, not a 500", async () => {
  const req = brokenRequest("grant_type=refresh_token&refresh_");
  const withLength = new Request(req, {
    headers: { ...Object.fromEntries(req.headers), "content-length": "100" },
  });
  await assert.rejects(readForm(withLength), (err: unknown) => {
    assert.ok(err instanceof OAuthError);
    assert.deepEqual([err.status, err.code], [400, "invalid_request"]);
    return true;
  });
});

Deno.test("parseForm() agrees with URLSearchParams, with and without escapes", () => {
  const bodies = [
    "",
    "&",
    "&&a=1&&",
    "grant_type=refresh_token&refresh_token=abc_DEF-123",
    "a",
    "a=",
    "=b",
    "=",
    "a==b&c=d=e",
    "a=1&b&c=",
    "x=%20y&z=a+b",
    "%61=1",
    "a=%zz&b=%e2%82%ac",
    "näme=välue&ü",
    "a=%FF",
    "a=1%",
    "a=\ud800&b=1",
  ];
  for (const body of bodies) {
    const expected = new Map(new URLSearchParams(body));
    assert.deepEqual(parseForm(body), expected, JSON.stringify(body));
  }
});

Deno.test("parseForm() refuses a repeated parameter on both paths", () => {
  for (const body of ["a=1&a=2", "a&a", "a=%31&a=2", "a=1&%61=2"]) {
    assert.throws(
      () => parseForm(body),
      (e: OAuthError) => e.code === "invalid_request" && e.description.includes("repeated"),
      body,
    );
  }
});

/** A body that sends one chunk and then never another, nor its end. */
function stalledBody(): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(c) {
      c.enqueue(new TextEncoder().encode("grant_type="));
    },
  });
}

Deno.test("readForm(): a body that stalls is 408 once the deadline passes, with or without content-length", async () => {
  for (
    const headers of [{ "content-type": FORM }, { "content-type": FORM, "content-length": "99" }]
  ) {
    const started = performance.now();
    // The deadline timer is unref'd (a listening server keeps the process alive); here a
    // timer of the test's own stands in for the server.
    const alive = setTimeout(() => {}, 5000);
    await assert.rejects(
      readForm(post(stalledBody(), headers), 0.05),
      (e) =>
        e instanceof OAuthError && e.status === 408 && e.code === "invalid_request" &&
        e.description === "The request body was not received in time" &&
        e.headers.Connection === "close",
    );
    clearTimeout(alive);
    assert.ok(performance.now() - started < 2000);
  }
});

Deno.test("readForm(): a body that arrives in time is read, and no timer is left behind", async () => {
  const params = await readForm(post("grant_type=x", { "content-type": FORM }), 30);
  assert.deepEqual([...params], [["grant_type", "x"]]);
  // Deno's test sanitizer fails this test if the 30 s timer were still pending.
});
