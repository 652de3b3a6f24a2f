import assert from "node:assert/strict";
import { createMemoryLogger } from "@org/shared";
import { acceptedRequestId, createRequestIds, MAX_REQUEST_ID_LENGTH } from "./request_id.ts";

const info = { remoteAddr: { hostname: "127.0.0.1", port: 50000 } };

Deno.test("acceptedRequestId() keeps UUIDs, ULIDs and tokens up to 128 characters", () => {
  for (
    const id of [
      "3f2c9a1e-8b1d-4c1a-9f3e-2a7b6c5d4e3f",
      "01JD7ZQ3N8V4X2K9M5T6R1W0YB",
      "req_abc.def:1/2+3=@~",
      "a".repeat(MAX_REQUEST_ID_LENGTH),
    ]
  ) assert.equal(acceptedRequestId(id), id);
});

Deno.test("acceptedRequestId() refuses empty, long, spaced, quoted and control-character ids", () => {
  for (
    const id of [
      null,
      "",
      "a".repeat(MAX_REQUEST_ID_LENGTH + 1),
      "a b",
      'a"b',
      "a,b",
      "a\nb",
      "a\u0000",
      "é",
      "<script>",
    ]
  ) assert.equal(acceptedRequestId(id), undefined, JSON.stringify(id));
});

Deno.test("createRequestIds() answers with the caller's sane id, else a new one", async () => {
  const { log } = createMemoryLogger();
  let n = 0;
  const ids = createRequestIds(log, () => `new-${++n}`);
  const handler = ids.wrap(() => Promise.resolve(new Response("ok")));
  const sane = await handler(
    new Request("http://x/", { headers: { "x-request-id": "abc-123" } }),
    info,
  );
  assert.equal(sane.headers.get("x-request-id"), "abc-123");
  const insane = await handler(
    new Request("http://x/", { headers: { "x-request-id": "a b" } }),
    info,
  );
  assert.equal(insane.headers.get("x-request-id"), "new-1");
  const none = await handler(new Request("http://x/"), info);
  assert.equal(none.headers.get("x-request-id"), "new-2");
});

Deno.test("createRequestIds() tags every log line of a request, even of interleaved ones", async () => {
  const { log, lines } = createMemoryLogger();
  const ids = createRequestIds(log, () => "unused");
  const scoped = ids.log.child({ component: "grant" });
  const gates = [Promise.withResolvers<void>(), Promise.withResolvers<void>()];
  const handler = ids.wrap(async (req) => {
    const i = Number(new URL(req.url).pathname.slice(1));
    ids.log.info("before", { i });
    await gates[i]!.promise; // the other request runs meanwhile
    scoped.warn("after", { i });
    return new Response(null);
  });
  const a = handler(new Request("http://x/0", { headers: { "x-request-id": "A" } }), info);
  const b = handler(new Request("http://x/1", { headers: { "x-request-id": "B" } }), info);
  gates[1]!.resolve();
  await b;
  gates[0]!.resolve();
  await a;
  ids.log.info("outside");
  const byMsg = lines.map((l) => [l.msg, l.i, l.request_id, l.component]);
  assert.deepEqual(byMsg, [
    ["before", 0, "A", undefined],
    ["before", 1, "B", undefined],
    ["after", 1, "B", "grant"],
    ["after", 0, "A", "grant"],
    ["outside", undefined, undefined, undefined],
  ]);
});

Deno.test("createRequestIds() copies a response whose headers cannot change", async () => {
  const { log } = createMemoryLogger();
  const ids = createRequestIds(log, () => "id-1");
  const handler = ids.wrap(() => Promise.resolve(Response.redirect("http://x/elsewhere", 302)));
  const res = await handler(new Request("http://x/"), info);
  assert.equal(res.status, 302);
  assert.equal(res.headers.get("location"), "http://x/elsewhere");
  assert.equal(res.headers.get("x-request-id"), "id-1");
});

Deno.test("createRequestIds() with tracing: a request's lines carry trace_id beside request_id", async () => {
  const { log, lines } = createMemoryLogger();
  const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
  const ids = createRequestIds(log, () => "rid-1", { traceId: () => traceId });
  await ids.wrap(() => {
    ids.log.info("inside");
    return Promise.resolve(new Response());
  })(new Request("http://127.0.0.1/"), info);
  ids.log.info("outside");
  assert.equal(lines[0]?.request_id, "rid-1");
  assert.equal(lines[0]?.trace_id, traceId);
  assert.equal(lines[1]?.trace_id, undefined);
});

Deno.test("createRequestIds() without tracing writes no trace_id", async () => {
  const { log, lines } = createMemoryLogger();
  const ids = createRequestIds(log, () => "rid-2");
  await ids.wrap(() => {
    ids.log.info("inside");
    return Promise.resolve(new Response());
  })(new Request("http://127.0.0.1/"), info);
  assert.deepEqual(Object.keys(lines[0] ?? {}).includes("trace_id"), false);
  assert.equal(lines[0]?.request_id, "rid-2");
});
