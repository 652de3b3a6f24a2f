import assert from "node:assert/strict";
import { createJsonLogger, createMemoryLogger, REDACTED } from "./logger.ts";
import { FixedClock } from "../time/clock.ts";

Deno.test("logger writes one JSON line with time, level, msg and fields", () => {
  const lines: string[] = [];
  const log = createJsonLogger({
    write: (l) => lines.push(l),
    clock: new FixedClock(Date.UTC(2026, 0, 1)),
  });
  log.info("listening", { port: 8080 });
  assert.deepEqual(JSON.parse(lines[0]!), {
    time: "2026-01-01T00:00:00.000Z",
    level: "info",
    msg: "listening",
    port: 8080,
  });
});

Deno.test("logger drops lines below its level", () => {
  const lines: string[] = [];
  const log = createJsonLogger({ level: "warn", write: (l) => lines.push(l) });
  log.info("quiet");
  log.error("loud");
  assert.equal(lines.length, 1);
});

Deno.test("logger redacts secrets, tokens, codes and authorization at any depth", () => {
  const { log, lines } = createMemoryLogger();
  log.warn("request", {
    headers: new Headers({ Authorization: "Bearer abc", Accept: "x" }),
    body: { refresh_token: "r", code: "c", client_secret: "s", user: "u" },
    list: [{ access_token: "a" }],
  });
  const line = JSON.stringify(lines[0]);
  for (const secret of ["Bearer abc", '"r"', '"c"', '"s"', '"a"']) {
    assert.ok(!line.includes(secret), `${secret} leaked: ${line}`);
  }
  assert.equal((lines[0]!.body as Record<string, unknown>).client_secret, REDACTED);
  assert.equal((lines[0]!.body as Record<string, unknown>).user, "u");
});

Deno.test("child logger adds its fields to every line", () => {
  const { log, lines } = createMemoryLogger();
  log.child({ request_id: "r1" }).info("x");
  assert.equal(lines[0]!.request_id, "r1");
});

Deno.test("logger writes errors with name and message", () => {
  const { log, lines } = createMemoryLogger();
  log.error("boom", { err: new TypeError("bad") });
  const err = lines[0]!.err as Record<string, unknown>;
  assert.equal(err.name, "TypeError");
  assert.equal(err.message, "bad");
});
