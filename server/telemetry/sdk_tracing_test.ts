import assert from "node:assert/strict";
import { trace } from "@opentelemetry/api";
import type { ReadableSpan } from "@opentelemetry/sdk-trace-base";
import { sampled, SAMPLER_NAMES, type SamplerConfig, samplerFromEnv } from "./sampler.ts";
import { sdkTracing } from "./sdk_tracing.ts";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER = "b7ad6b7169203331";

/** A tracing under `sampler` exporting to memory, and one request through its `serve`. */
function harness(sampler: SamplerConfig) {
  const spans: ReadableSpan[] = [];
  const exporter = {
    export(batch: ReadableSpan[], done: (r: { code: number }) => void) {
      spans.push(...batch);
      done({ code: 0 });
    },
    shutdown: () => Promise.resolve(),
  };
  const tracing = sdkTracing({ sampler, serviceName: "test", exporter });
  const request = async (traceparent?: string) => {
    let active: ReturnType<typeof trace.getActiveSpan> = undefined;
    let headers: Readonly<Record<string, string>> = {};
    const req = new Request("https://auth.example/token?code=secret", {
      method: "POST",
      headers: traceparent === undefined ? {} : { traceparent },
    });
    const res = await tracing.serve!(req, async () => {
      active = trace.getActiveSpan();
      // A store span under the request, as the traced store makes it.
      await tracing.inSpan("store sessions.rotate", {}, () => Promise.resolve(), { leaf: true });
      headers = tracing.traceHeaders();
      return new Response("{}", { status: 200 });
    });
    assert.equal(res.status, 200);
    return { active: active as ReturnType<typeof trace.getActiveSpan>, headers };
  };
  const exported = async (): Promise<ReadableSpan[]> => {
    await tracing.shutdown();
    return spans;
  };
  return { tracing, request, exported };
}

const ratio = (r: number) => samplerFromEnv("parentbased_traceidratio", String(r)).config;

Deno.test("sdkTracing: a sampled traceparent is always followed, even at ratio 0", async () => {
  const h = harness(ratio(0));
  const { active, headers } = await h.request(`00-${TRACE}-${CALLER}-01`);
  assert.equal(active?.spanContext().traceId, TRACE);
  const spans = await h.exported();
  assert.deepEqual(spans.map((s) => s.name).sort(), ["POST", "store sessions.rotate"]);
  const server = spans.find((s) => s.name === "POST")!;
  assert.equal(server.spanContext().traceId, TRACE);
  assert.equal(server.parentSpanContext?.spanId, CALLER);
  assert.equal(server.attributes["http.response.status_code"], 200);
  assert.equal(server.attributes["url.path"], "/token");
  // No span holds the query.
  assert.ok(!JSON.stringify(server.attributes).includes("secret"));
  // A call made inside the request carries the request's span on.
  assert.equal(headers.traceparent, `00-${TRACE}-${server.spanContext().spanId}-01`);
});

Deno.test("sdkTracing: an unsampled traceparent makes no span at all, even at ratio 1", async () => {
  const h = harness(ratio(1));
  const { active, headers } = await h.request(`00-${TRACE}-${CALLER}-00`);
  // Not even a non-recording span: the request ran outside any span.
  assert.equal(active, undefined);
  assert.deepEqual(headers, {});
  assert.deepEqual(await h.exported(), []);
});

Deno.test("sdkTracing: without a traceparent the ratio decides on the exported trace id", async () => {
  const none = harness(ratio(0));
  for (let i = 0; i < 20; i++) assert.equal((await none.request()).active, undefined);
  assert.deepEqual(await none.exported(), []);

  const half = harness(ratio(0.5));
  const seen: string[] = [];
  for (let i = 0; i < 200; i++) {
    const { active } = await half.request();
    if (active !== undefined) seen.push(active.spanContext().traceId);
  }
  // 100 expected, standard deviation about 7.
  assert.ok(seen.length > 60 && seen.length < 140, `${seen.length} of 200 sampled`);
  const roots = (await half.exported()).filter((s) => s.name === "POST");
  assert.deepEqual(roots.map((s) => s.spanContext().traceId), seen);
  for (const id of seen) {
    assert.ok(BigInt(`0x${id.slice(18)}`) >= 2n ** 55n, `${id} sampled below the threshold`);
  }
});

Deno.test("sdkTracing: always_off ignores a sampled parent, always_on an unsampled one", async () => {
  const off = harness(samplerFromEnv("always_off", undefined).config);
  assert.equal((await off.request(`00-${TRACE}-${CALLER}-01`)).active, undefined);
  assert.deepEqual(await off.exported(), []);
  const on = harness(samplerFromEnv("always_on", undefined).config);
  assert.equal((await on.request(`00-${TRACE}-${CALLER}-00`)).active?.spanContext().traceId, TRACE);
  assert.equal((await on.exported()).length, 2);
});

Deno.test("sdkTracing: a collector that is down costs dropped spans, counted, never a request", async () => {
  const failing = {
    export(_spans: ReadableSpan[], done: (r: { code: number }) => void) {
      done({ code: 1 });
    },
    shutdown: () => Promise.resolve(),
  };
  const tracing = sdkTracing({
    sampler: samplerFromEnv("always_on", undefined).config,
    serviceName: "test",
    exporter: failing,
  });
  for (let i = 0; i < 3; i++) {
    const res = await tracing.serve!(
      new Request("https://auth.example/health"),
      () => Promise.resolve(new Response("ok")),
    );
    assert.equal(res.status, 200);
  }
  await tracing.shutdown();
  assert.deepEqual(tracing.droppedSpans(), { queueFull: 0, exportFailed: 3 });
});

Deno.test("sdkTracing: sampling is decided once per request or delivery, never again by the SDK", async () => {
  for (const name of SAMPLER_NAMES) {
    const config = samplerFromEnv(name, "0.5").config;
    for (const flag of [undefined, "01", "00"]) {
      const calls: boolean[] = [];
      const decide: typeof sampled = (...args) => {
        const decision = sampled(...args);
        calls.push(decision);
        return decision;
      };
      const spans: ReadableSpan[] = [];
      const tracing = sdkTracing({
        sampler: config,
        serviceName: "test",
        decide,
        exporter: {
          export(batch, done) {
            spans.push(...batch);
            done({ code: 0 });
          },
          shutdown: () => Promise.resolve(),
        },
      });
      const child = () =>
        tracing.inSpan("store sessions.rotate", {}, () => Promise.resolve(), { leaf: true });
      const headers: HeadersInit = flag === undefined
        ? {}
        : { traceparent: `00-${TRACE}-${CALLER}-${flag}` };
      await tracing.serve!(new Request("https://auth.example/token", { headers }), async () => {
        await child();
        await child();
        return new Response("{}");
      });
      // A delivery: a trace of its own, with a span under it.
      await tracing.inSpan("webhook deliver", {}, async () => {
        await tracing.inSpan("provider x", {}, () => Promise.resolve());
      }, { root: true });
      await tracing.shutdown();
      const where = `${name}, traceparent flag ${flag ?? "none"}`;
      // One decision for the request, one for the delivery: none per span.
      assert.equal(calls.length, 2, where);
      const [request, delivery] = calls;
      const names = spans.map((s) => s.name).sort();
      assert.deepEqual(
        names,
        [
          ...(request ? ["GET", "store sessions.rotate", "store sessions.rotate"] : []),
          ...(delivery ? ["provider x", "webhook deliver"] : []),
        ].sort(),
        where,
      );
      // What was decided is what the specification's sampler decides.
      if (flag !== undefined && name.startsWith("parentbased_")) {
        assert.equal(request, flag === "01", where);
      }
      if (name.endsWith("always_on")) assert.equal(delivery, true, where);
      if (name.endsWith("always_off")) assert.equal(delivery, false, where);
    }
  }
});

Deno.test("sdkTracing: an unsampled delivery runs with no span at all", async () => {
  const tracing = sdkTracing({
    sampler: samplerFromEnv("always_off", undefined).config,
    serviceName: "test",
    exporter: {
      export: (_batch, done) => done({ code: 0 }),
      shutdown: () => Promise.resolve(),
    },
  });
  let active: ReturnType<typeof trace.getActiveSpan> = undefined;
  let headers: Readonly<Record<string, string>> = {};
  await tracing.inSpan("webhook deliver", {}, () => {
    active = trace.getActiveSpan();
    headers = tracing.traceHeaders();
    return Promise.resolve();
  }, { root: true });
  assert.equal(active, undefined);
  assert.deepEqual(headers, {});
  await tracing.shutdown();
});

Deno.test("sdkTracing: the SDK records what was decided, without deciding again", async () => {
  // A decision against the configured sampler: a second decision by the sampler (in the SDK,
  // per span) would undo it.
  for (const [name, decision] of [["always_off", true], ["always_on", false]] as const) {
    let calls = 0;
    const spans: ReadableSpan[] = [];
    const tracing = sdkTracing({
      sampler: samplerFromEnv(name, undefined).config,
      serviceName: "test",
      decide: () => (calls++, decision),
      exporter: {
        export(batch, done) {
          spans.push(...batch);
          done({ code: 0 });
        },
        shutdown: () => Promise.resolve(),
      },
    });
    await tracing.serve!(new Request("https://auth.example/token"), async () => {
      await tracing.inSpan("store sessions.rotate", {}, () => Promise.resolve(), { leaf: true });
      return new Response("{}");
    });
    await tracing.inSpan("webhook deliver", {}, () => Promise.resolve(), { root: true });
    await tracing.shutdown();
    assert.equal(calls, 2);
    assert.deepEqual(
      spans.map((s) => s.name).sort(),
      decision ? ["GET", "store sessions.rotate", "webhook deliver"] : [],
      name,
    );
  }
});
