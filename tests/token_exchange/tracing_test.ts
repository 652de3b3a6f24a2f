/**
 * OpenTelemetry end to end: the service runs as its own process with `OTEL_DENO=true` (Deno's
 * own OpenTelemetry) or `OTEL_TRACES_EXPORTER=otlp` (the OpenTelemetry SDK, with head
 * sampling), exporting OTLP over HTTP to a collector in this test, which then holds the spans
 * of a token request.
 */
import assert from "node:assert/strict";
import { adminFetch, adminJson, internalToml } from "../support/internal_api.ts";
import { startOidcProvider } from "../support/oidc.ts";
import {
  type OtlpCollector,
  type ReceivedSpan,
  startOtlpCollector,
} from "../support/otlp_collector.ts";
import { startTestPostgres } from "../support/postgres.ts";
import { providerToml, spawnTokenServer } from "../support/token_server.ts";
import { waitFor } from "../support/wait.ts";
import { startWebhookReceiver } from "../support/webhook_receiver.ts";

const WHSEC = "whsec_" + btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

/** A trace id a caller started. */
const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";

/** The environment that turns tracing on, exporting to `collector` in its JSON encoding. */
const tracingTo = (collector: OtlpCollector) => ({
  OTEL_DENO: "true",
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
  OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
});

/** The same through the OpenTelemetry SDK, sampling every request (the default sampler). */
const sdkTracingTo = (collector: OtlpCollector, sampler: Record<string, string> = {}) => ({
  OTEL_TRACES_EXPORTER: "otlp",
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
  ...sampler,
});

/** The JSON log lines of a server's standard error. */
const logLines = (stderr: string): Record<string, unknown>[] =>
  stderr.split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));

for (const sdk of [false, true]) {
  Deno.test(`tracing (${sdk ? "SDK" : "OTEL_DENO"}): a code exchange and a refresh are traces with provider and store spans, each webhook attempt a trace of its own, log lines name their trace`, async () => {
    await exchangeAndRefreshTraced(sdk);
  });
}

async function exchangeAndRefreshTraced(sdk: boolean): Promise<void> {
  await using collector = startOtlpCollector();
  await using idp = await startOidcProvider();
  await using receiver = startWebhookReceiver(WHSEC);
  const toml = `[server]\nport = 0\n` + providerToml("idp", idp.issuer) +
    `[[webhooks.endpoints]]\nurl = "${receiver.url}"\nsecret = "\${W}"\nevents = ["user.created"]\n`;
  const server = await spawnTokenServer({
    toml,
    env: {
      W: WHSEC,
      ...(sdk ? sdkTracingTo(collector) : tracingTo(collector)),
      OTEL_SERVICE_NAME: "token-exchange-test",
    },
  });
  let stderr: string;
  let requestId: string | null;
  try {
    assert.ok(server.stdout.some((l) => /tracing on/.test(l)), server.stdout.join("\n"));
    // The new user's `user.created` goes out as a trace of its own per attempt: the first
    // fails, the second, after its backoff, succeeds.
    receiver.answer = 500;
    const res = await fetch(`${server.url}/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: "c",
        provider: "idp",
        redirect_uri: "https://app.example/cb",
      }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    requestId = res.headers.get("x-request-id");
    const { refresh_token } = await res.json() as { refresh_token: string };
    const refreshed = await fetch(`${server.url}/token`, {
      method: "POST",
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token }),
    });
    assert.equal(refreshed.status, 200, await refreshed.clone().text());
    await refreshed.body?.cancel();
    await waitFor(() => receiver.received.length > 0, "the user.created delivery");
    receiver.answer = 204;
    await waitFor(() => receiver.received.some((r) => r.status === 204), "the redelivery");
  } finally {
    stderr = (await server.stop("SIGTERM")).stderr;
  }

  const tokenRequest = (grantType: string) =>
    waitFor(
      () =>
        collector.spans.find((s) =>
          s.kind === 2 && s.name === "POST /token" &&
          s.attributes["token_exchange.grant_type"] === grantType
        ),
      `the /token server span of ${grantType}`,
    );
  const request = await tokenRequest("authorization_code");
  assert.equal(request.attributes["http.route"], "/token");
  assert.equal(request.attributes["token_exchange.grant_type"], "authorization_code");
  assert.equal(request.attributes["token_exchange.listener"], "public");
  // Deno's own attribute (a string in its export).
  assert.equal(String(request.attributes["http.response.status_code"]), "200");
  const inTrace = (s: ReceivedSpan) => s.traceId === request.traceId;
  const descends = (s: ReceivedSpan): boolean => {
    const parent = collector.spans.find((p) => p.spanId === s.parentSpanId);
    return parent !== undefined && (parent === request || descends(parent));
  };

  // Discovery, JWKS and the code exchange: each a provider span under the request.
  const providerSpans = collector.spans.filter((s) => inTrace(s) && s.name === "provider idp");
  assert.ok(providerSpans.length >= 2, JSON.stringify(providerSpans));
  for (const s of providerSpans) {
    assert.ok(descends(s));
    assert.match(String(s.attributes["server.address"]), /^(127\.0\.0\.1|localhost)$/);
    assert.equal(s.attributes["http.response.status_code"], 200);
    assert.equal(s.attributes["token_exchange.provider.timed_out"], false);
    assert.equal(typeof s.attributes["token_exchange.provider.timeout_s"], "number");
  }
  assert.ok(providerSpans.some((s) => s.attributes["http.request.method"] === "POST"));

  // The user's creation and the session's: store spans under the request.
  const storeOps = collector.spans.filter((s) => inTrace(s) && s.name.startsWith("store "))
    .map((s) => {
      assert.ok(descends(s));
      assert.equal(s.attributes["db.system.name"], "deno_kv");
      return s.attributes["db.operation.name"];
    });
  assert.ok(storeOps.includes("users.create"), storeOps.join());
  assert.ok(storeOps.includes("sessions.create"), storeOps.join());

  // The refresh: its own request span, its grant type, its rotation a store span under it.
  const refresh = await tokenRequest("refresh_token");
  assert.equal(String(refresh.attributes["http.response.status_code"]), "200");
  const refreshOps = collector.spans.filter((s) =>
    s.traceId === refresh.traceId && s.parentSpanId === refresh.spanId &&
    s.name.startsWith("store ")
  ).map((s) => s.attributes["db.operation.name"]);
  assert.deepEqual(refreshOps, ["sessions.readForRefresh", "sessions.rotate"]);

  // Each delivery attempt: a trace of its own, carried to the receiver (by Deno's client span of
  // the POST under it, or by the delivery span itself under the SDK).
  const attempt = (n: number) =>
    waitFor(
      () =>
        collector.spans.find((s) =>
          s.name === "webhook deliver" && s.attributes["webhook.attempt"] === n
        ),
      `the span of delivery attempt ${n}`,
    );
  const [failed, delivered] = [await attempt(1), await attempt(2)];
  assert.equal(failed.attributes["webhook.outcome"], "HTTP 500");
  assert.equal(failed.status, 2);
  assert.equal(delivered.attributes["webhook.outcome"], "delivered");
  assert.notEqual(failed.traceId, delivered.traceId);
  for (const delivery of [failed, delivered]) {
    assert.notEqual(delivery.traceId, request.traceId);
    assert.equal(delivery.parentSpanId, "");
    assert.equal(delivery.attributes["webhook.event_type"], "user.created");
    assert.equal(delivery.attributes["webhook.message_id"], receiver.received[0]!.id);
    assert.match(String(delivery.attributes["webhook.endpoint"]), /^whe_/);
    assert.equal(delivery.attributes["server.address"], "127.0.0.1");
    if (sdk) {
      const carried = receiver.received.map((r) => r.traceparent);
      assert.ok(
        carried.includes(`00-${delivery.traceId}-${delivery.spanId}-01`),
        carried.join(" "),
      );
    } else {
      assert.ok(collector.spans.some((s) => s.kind === 3 && s.parentSpanId === delivery.spanId));
    }
  }

  // Every log line of the request names its trace beside its request id.
  const ofRequest = logLines(stderr).filter((l) => l.request_id === requestId);
  assert.ok(ofRequest.length > 0, stderr);
  for (const line of ofRequest) assert.equal(line.trace_id, request.traceId);
}

Deno.test("tracing: internal listener requests are spans with route and status; provider failures and timeouts are marked on their spans", async (t) => {
  await using collector = startOtlpCollector();
  await using idp = await startOidcProvider();
  // Accepts connections (the kernel's backlog) and never answers: a provider that hangs.
  using hang = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const toml = `[server]\nport = 0\n` + providerToml("idp", idp.issuer) +
    providerToml("slow", idp.issuer) +
    `token_endpoint = "http://127.0.0.1:${hang.addr.port}/token"\ntimeout = "1s"\n` +
    internalToml("port = 0\n");
  const server = await spawnTokenServer({
    toml,
    env: tracingTo(collector),
  });
  let stderr: string;
  let createdBy: string | null;
  try {
    const created = await adminFetch(server, "POST", "/internal/users", {
      body: { provider: "idp", external_id: "e1", email: "e1@example.com" },
    });
    assert.equal(created.status, 201, await created.clone().text());
    createdBy = created.headers.get("x-request-id");
    const { id } = await created.json() as { id: string };
    // A caller's W3C trace context makes the request part of the caller's trace.
    await adminJson(server, "GET", `/internal/users/${id}`, 200, {
      headers: { traceparent: `00-${CALLER_TRACE}-b7ad6b7169203331-01` },
    });
    const refused = await adminFetch(server, "GET", `/internal/users/${id}`, {
      headers: { authorization: "Bearer wrong" },
    });
    assert.equal(refused.status, 401);
    await refused.body?.cancel();
    // Metrics stay on /internal/metrics with tracing on, counting what went before.
    const metrics = await adminFetch(server, "GET", "/internal/metrics");
    assert.equal(metrics.status, 200);
    assert.match(await metrics.text(), /token_exchange_http_requests_total\{[^}]*status="201"\} 1/);
    const login = await fetch(`${server.internalUrl}/admin/login`);
    assert.equal(login.status, 200);
    await login.body?.cancel();
    const exchange = async (provider: string, status: number) => {
      const res = await fetch(`${server.url}/token`, {
        method: "POST",
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: "c",
          provider,
          redirect_uri: "https://app.example/cb",
        }),
      });
      assert.equal(res.status, status, await res.clone().text());
      await res.body?.cancel();
    };
    idp.server.service.once("beforeResponse", (res: { statusCode: number; body: unknown }) => {
      res.statusCode = 500;
      res.body = { error: "server_error" };
    });
    await exchange("idp", 502);
    await exchange("slow", 504);
  } finally {
    stderr = (await server.stop("SIGTERM")).stderr;
  }

  const serverSpan = (name: string, status: number) =>
    waitFor(
      () =>
        collector.spans.find((s) =>
          s.kind === 2 && s.name === name &&
          String(s.attributes["http.response.status_code"]) === String(status)
        ),
      `the ${name} ${status} server span`,
    );

  await t.step(
    "an operator's API call is a request span of the internal listener (in its caller's trace), with its store spans and log lines",
    async () => {
      const create = await serverSpan("POST /internal/users", 201);
      assert.equal(create.attributes["http.route"], "/internal/users");
      assert.equal(create.attributes["token_exchange.listener"], "internal");
      const get = await serverSpan("GET /internal/users/{id}", 200);
      assert.equal(get.attributes["http.route"], "/internal/users/{id}");
      assert.equal(get.attributes["token_exchange.listener"], "internal");
      assert.equal(get.traceId, CALLER_TRACE);
      const storeOps = (request: typeof create) =>
        collector.spans.filter((s) =>
          s.traceId === request.traceId && s.parentSpanId === request.spanId &&
          s.name.startsWith("store ")
        ).map((s) => s.attributes["db.operation.name"]);
      assert.ok(storeOps(create).includes("users.create"), storeOps(create).join());
      assert.ok(storeOps(get).includes("users.get"), storeOps(get).join());

      const ofCreate = logLines(stderr).filter((l) => l.request_id === createdBy);
      assert.ok(ofCreate.length > 0, stderr);
      for (const line of ofCreate) assert.equal(line.trace_id, create.traceId);
    },
  );

  await t.step("a refused operator call is a span with its route and 401", async () => {
    const refused = await serverSpan("GET /internal/users/{id}", 401);
    assert.equal(refused.attributes["token_exchange.listener"], "internal");
  });

  await t.step("a console page is a request span of the internal listener", async () => {
    const page = await serverSpan("GET /admin/login", 200);
    assert.equal(page.attributes["http.route"], "/admin/login");
    assert.equal(page.attributes["token_exchange.listener"], "internal");
  });

  await t.step(
    "a provider's failing answer is on its span: its status, the span failed",
    async () => {
      const request = await serverSpan("POST /token", 502);
      const call = collector.spans.find((s) =>
        s.traceId === request.traceId && s.name === "provider idp" &&
        s.attributes["http.request.method"] === "POST"
      );
      assert.ok(call, JSON.stringify(collector.spans.filter((s) => s.traceId === request.traceId)));
      assert.equal(call.attributes["http.response.status_code"], 500);
      assert.equal(call.attributes["token_exchange.provider.timed_out"], false);
      assert.equal(call.status, 2);
    },
  );

  await t.step(
    "a provider call past its timeout is a failed provider span marked timed out, under a 504",
    async () => {
      const request = await serverSpan("POST /token", 504);
      assert.equal(request.attributes["token_exchange.grant_type"], "authorization_code");
      const call = collector.spans.find((s) =>
        s.traceId === request.traceId && s.name === "provider slow" &&
        s.attributes["token_exchange.provider.timed_out"] === true
      );
      assert.ok(call, JSON.stringify(collector.spans.filter((s) => s.traceId === request.traceId)));
      assert.equal(call.attributes["http.request.method"], "POST");
      assert.equal(call.attributes["server.address"], "127.0.0.1");
      assert.equal(call.attributes["token_exchange.provider.timeout_s"], 1);
      assert.equal(call.attributes["http.response.status_code"], undefined);
      assert.equal(call.status, 2);
    },
  );
});

Deno.test("tracing: on PostgreSQL a store operation's span names the system postgresql", async () => {
  await using collector = startOtlpCollector();
  await using pg = await startTestPostgres();
  const server = await spawnTokenServer({
    toml: `[server]\nport = 0\n[storage]\nurl = "\${TE_DATABASE_URL}"\n`,
    env: { TE_DATABASE_URL: await pg.schema("tracing"), ...tracingTo(collector) },
  });
  try {
    const res = await fetch(`${server.url}/health`);
    assert.equal(res.status, 200, await res.clone().text());
    await res.body?.cancel();
  } finally {
    await server.stop("SIGTERM");
  }
  const request = await waitFor(
    () => collector.spans.find((s) => s.kind === 2 && s.name === "GET /health"),
    "the /health server span",
  );
  const ping = collector.spans.find((s) =>
    s.parentSpanId === request.spanId && s.name === "store ping"
  );
  assert.ok(ping, JSON.stringify(collector.spans.filter((s) => s.traceId === request.traceId)));
  assert.equal(ping.attributes["db.system.name"], "postgresql");
  assert.equal(ping.attributes["db.operation.name"], "ping");
});

Deno.test("tracing: an access-token hook call is a span under the token request, failed when the hook fails", async () => {
  await using collector = startOtlpCollector();
  await using idp = await startOidcProvider();
  await using hook = startWebhookReceiver(WHSEC);
  hook.reply = () => Response.json({ claims: { plan: "pro" } });
  const toml = `[server]\nport = 0\n` + providerToml("idp", idp.issuer) +
    `[hooks.access_token]\nurl = "${hook.url}"\nsecret = "\${H}"\nfailure_policy = "allow"\n`;
  const server = await spawnTokenServer({ toml, env: { H: WHSEC, ...tracingTo(collector) } });
  try {
    const token = (grant: Record<string, string>) =>
      fetch(`${server.url}/token`, { method: "POST", body: new URLSearchParams(grant) });
    const res = await token({
      grant_type: "authorization_code",
      code: "c",
      provider: "idp",
      redirect_uri: "https://app.example/cb",
    });
    assert.equal(res.status, 200, await res.clone().text());
    const { refresh_token } = await res.json() as { refresh_token: string };
    hook.reply = () => new Response(null, { status: 500 });
    const refreshed = await token({ grant_type: "refresh_token", refresh_token });
    assert.equal(refreshed.status, 200, await refreshed.clone().text());
    await refreshed.body?.cancel();
  } finally {
    await server.stop("SIGTERM");
  }
  const hookSpan = (grantType: string) =>
    waitFor(
      () =>
        collector.spans.find((s) =>
          s.name === "hook access_token" && s.attributes["token_exchange.grant_type"] === grantType
        ),
      `the hook span of ${grantType}`,
    );
  const ok = await hookSpan("authorization_code");
  const request = collector.spans.find((s) => s.spanId === ok.parentSpanId);
  assert.equal(request?.name, "POST /token");
  assert.equal(ok.attributes["http.response.status_code"], 200);
  assert.equal(ok.attributes["token_exchange.hook.timeout_s"], 2);
  assert.notEqual(ok.status, 2);
  const failed = await hookSpan("refresh_token");
  assert.equal(failed.status, 2);
  assert.equal(failed.attributes["http.response.status_code"], 500);
});

Deno.test("tracing (SDK): OTEL_TRACES_SAMPLER decides per request; a sampled traceparent is followed, an unsampled request exports nothing", async () => {
  await using collector = startOtlpCollector();
  const server = await spawnTokenServer({
    toml: `[server]\nport = 0\n`,
    // No trace started here is sampled: only a caller's sampled one is.
    env: sdkTracingTo(collector, {
      OTEL_TRACES_SAMPLER: "parentbased_traceidratio",
      OTEL_TRACES_SAMPLER_ARG: "0",
    }),
  });
  const CALLER_SPAN = "b7ad6b7169203331";
  const ids: Record<string, string | null> = {};
  let stderr: string;
  try {
    assert.ok(
      server.stdout.some((l) => /tracing on .*parentbased_traceidratio, ratio 0/.test(l)),
      server.stdout.join("\n"),
    );
    const get = async (name: string, traceparent?: string) => {
      const res = await fetch(`${server.url}/health`, {
        headers: traceparent === undefined ? {} : { traceparent },
      });
      assert.equal(res.status, 200);
      await res.body?.cancel();
      ids[name] = res.headers.get("x-request-id");
    };
    await get("root");
    await get("unsampled", `00-${"1".repeat(32)}-${CALLER_SPAN}-00`);
    await get("sampled", `00-${CALLER_TRACE}-${CALLER_SPAN}-01`);
    await get("root again");
  } finally {
    // Stopping exports what is queued.
    stderr = (await server.stop("SIGTERM")).stderr;
  }
  const request = await waitFor(
    () => collector.spans.find((s) => s.kind === 2 && s.name === "GET /health"),
    "the sampled request's server span",
  );
  assert.equal(request.traceId, CALLER_TRACE);
  assert.equal(request.parentSpanId, CALLER_SPAN);
  assert.equal(String(request.attributes["http.response.status_code"]), "200");
  assert.equal(request.attributes["http.route"], "/health");
  assert.ok(
    collector.spans.some((s) => s.parentSpanId === request.spanId && s.name === "store ping"),
  );
  // Nothing of the other three requests: every span exported is of the caller's trace.
  assert.deepEqual([...new Set(collector.spans.map((s) => s.traceId))], [CALLER_TRACE]);
  const lines = logLines(stderr);
  const traceOf = (name: string) =>
    lines.filter((l) => l.request_id === ids[name]).map((l) => l.trace_id);
  for (const name of ["root", "unsampled", "root again"]) {
    assert.ok(traceOf(name).every((t) => t === undefined), name);
  }
});

for (const protocol of ["http/json", "http/protobuf"] as const) {
  Deno.test(`tracing (SDK): OTEL_EXPORTER_OTLP_PROTOCOL=${protocol} reaches the collector in that encoding`, async () => {
    await using collector = startOtlpCollector();
    const server = await spawnTokenServer({
      toml: `[server]\nport = 0\n`,
      env: { ...sdkTracingTo(collector), OTEL_EXPORTER_OTLP_PROTOCOL: protocol },
    });
    try {
      assert.ok(
        server.stdout.some((l) =>
          l.includes(`tracing on (OpenTelemetry, OTLP over HTTP; ${protocol}, `)
        ),
        server.stdout.join("\n"),
      );
      const res = await fetch(`${server.url}/health`);
      assert.equal(res.status, 200);
      await res.body?.cancel();
    } finally {
      await server.stop("SIGTERM");
    }
    const type = protocol === "http/json" ? "application/json" : "application/x-protobuf";
    // Protobuf carries strings as their UTF-8 bytes: the span's name is in the export.
    const named = () =>
      protocol === "http/json"
        ? collector.spans.some((s) => s.name === "GET /health")
        : collector.protobufExports.some((b) =>
          new TextDecoder().decode(b).includes("GET /health")
        );
    await waitFor(named, "the request's server span");
    assert.ok(collector.contentTypes.length > 0);
    for (const t of collector.contentTypes) assert.equal(t, type);
  });
}

Deno.test("tracing (SDK): a protocol the exporter cannot speak is named in a warning, and JSON goes out", async () => {
  await using collector = startOtlpCollector();
  const server = await spawnTokenServer({
    toml: `[server]\nport = 0\n`,
    env: { ...sdkTracingTo(collector), OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" },
  });
  let stderr: string;
  try {
    const res = await fetch(`${server.url}/health`);
    assert.equal(res.status, 200);
    await res.body?.cancel();
  } finally {
    stderr = (await server.stop("SIGTERM")).stderr;
  }
  assert.match(
    stderr,
    /OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc is not supported .*; exporting http\/json/,
  );
  await waitFor(
    () => collector.spans.find((s) => s.name === "GET /health"),
    "the request's server span",
  );
  for (const type of collector.contentTypes) assert.equal(type, "application/json");
});
