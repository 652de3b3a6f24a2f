import assert from "node:assert/strict";
import { type Context, context, type ContextManager, ROOT_CONTEXT } from "@opentelemetry/api";
import { startTokenServer } from "../tests/support/token_server.ts";
import { testUser } from "../tests/support/users.ts";
import { startSession } from "./grants/issue_tokens.ts";
import { createIdFactory } from "./store/ids.ts";
import { openTelemetryTracing, type Tracing } from "./telemetry/tracing.ts";

/**
 * A context manager that counts the look-ups of the active context: every span started, every
 * `getActiveSpan()` and every `trace_id` read goes through one, so a count of 0 means the code
 * that ran did not touch OpenTelemetry at all.
 */
class CountingContextManager implements ContextManager {
  lookups = 0;
  active(): Context {
    this.lookups++;
    return ROOT_CONTEXT;
  }
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(
    _context: Context,
    fn: F,
    thisArg?: ThisParameterType<F>,
    ...args: A
  ): ReturnType<F> {
    return fn.call(thisArg, ...args);
  }
  bind<T>(_context: Context, target: T): T {
    return target;
  }
  enable(): this {
    return this;
  }
  disable(): this {
    return this;
  }
}

/** How often a refresh through the public listener looked up the OpenTelemetry context. */
async function contextLookupsOfARefresh(traced: boolean, counter: CountingContextManager) {
  await using te = await startTokenServer(traced ? { tracing: openTelemetryTracing() } : {});
  const { deps } = te.server;
  const user = testUser(1, deps.clock.now());
  await deps.store.users.create(user);
  const session = createIdFactory(deps.clock, deps.random).next("ses");
  const { refresh_token } = await startSession(deps, user, session);
  counter.lookups = 0;
  const res = await fetch(`${te.url}/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refresh_token! }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.body?.cancel();
  return counter.lookups;
}

Deno.test("startServer() without tracing: a refresh never touches OpenTelemetry (it does with tracing on)", async () => {
  const counter = new CountingContextManager();
  assert.ok(context.setGlobalContextManager(counter), "another context manager is registered");
  try {
    assert.equal(await contextLookupsOfARefresh(false, counter), 0);
    // The same count sees the traced service: a 0 above is the plain path, not a blind counter.
    assert.ok(await contextLookupsOfARefresh(true, counter) > 0);
  } finally {
    context.disable();
  }
});

/** The store operations one refresh through the public listener makes, in order. */
async function storeCallsOfARefresh(toml: string): Promise<string[]> {
  const calls: string[] = [];
  // Records every store operation (the traced store asks for a span for each), outside any
  // trace: nothing else is traced and nothing is exported.
  const recording: Tracing = {
    inSpan: (name, _attributes, work) => {
      if (name.startsWith("store ")) calls.push(name.slice("store ".length));
      return work({ setAttributes() {}, fail() {} });
    },
    annotate() {},
    traceId: () => undefined,
    traceHeaders: () => ({}),
  };
  // No timer runs: the webhook sender's polling is not what is measured here.
  const never = { every: () => () => {} };
  const secret = "whsec_" + btoa("0123456789abcdef0123456789abcdef");
  await using te = await startTokenServer({
    toml,
    env: { W: secret },
    tracing: recording,
    scheduler: never,
  });
  const { deps } = te.server;
  const user = testUser(1, deps.clock.now());
  await deps.store.users.create(user);
  const { refresh_token } = await startSession(
    deps,
    user,
    createIdFactory(deps.clock, deps.random).next("ses"),
  );
  calls.length = 0;
  const res = await fetch(`${te.url}/token`, {
    method: "POST",
    body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: refresh_token! }),
  });
  assert.equal(res.status, 200, await res.clone().text());
  await res.body?.cancel();
  return calls;
}

Deno.test("startServer() with webhooks: a refresh (no event) does exactly the store work it does without", async () => {
  const without = await storeCallsOfARefresh("");
  const withWebhooks = await storeCallsOfARefresh(
    `[[webhooks.endpoints]]\nurl = "http://127.0.0.1:9/hook"\nsecret = "\${W}"\n` +
      `events = ["session.revoked"]\n`,
  );
  assert.ok(without.includes("sessions.rotate"), without.join(", "));
  assert.deepEqual(withWebhooks, without);
});
