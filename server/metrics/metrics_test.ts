import assert from "node:assert/strict";
import { Metrics } from "./metrics.ts";

Deno.test("Metrics.render() writes cumulative latency buckets and per-status counters", () => {
  const m = new Metrics();
  m.observeRequest("public", "POST /token", 200, 0.0005);
  m.observeRequest("public", "POST /token", 200, 0.02);
  m.observeRequest("public", "POST /token", 400, 20);
  m.tokenIssued("refresh_token");
  const lines = m.render().split("\n");
  const has = (l: string) => assert.ok(lines.includes(l), l);
  const labels = 'listener="public",method="POST",route="/token"';
  has(`token_exchange_http_requests_total{${labels},status="200"} 2`);
  has(`token_exchange_http_requests_total{${labels},status="400"} 1`);
  has(`token_exchange_http_request_duration_seconds_bucket{${labels},le="0.001"} 1`);
  has(`token_exchange_http_request_duration_seconds_bucket{${labels},le="0.025"} 2`);
  has(`token_exchange_http_request_duration_seconds_bucket{${labels},le="10"} 2`);
  has(`token_exchange_http_request_duration_seconds_bucket{${labels},le="+Inf"} 3`);
  has(`token_exchange_http_request_duration_seconds_count{${labels}} 3`);
  has('token_exchange_tokens_issued_total{grant="refresh_token"} 1');
  has("token_exchange_refresh_reuse_detected_total 0");
});

Deno.test("Metrics keeps the listeners' series apart when their route labels are equal", () => {
  const m = new Metrics();
  m.observeRequest("public", "GET /health", 200, 0.001);
  m.observeRequest("internal", "GET /health", 200, 0.001);
  m.observeRequest("internal", "GET /health", 503, 0.001);
  const lines = m.render().split("\n");
  const has = (l: string) => assert.ok(lines.includes(l), l);
  has(
    'token_exchange_http_requests_total{listener="public",method="GET",route="/health",status="200"} 1',
  );
  has(
    'token_exchange_http_requests_total{listener="internal",method="GET",route="/health",status="200"} 1',
  );
  has(
    'token_exchange_http_requests_total{listener="internal",method="GET",route="/health",status="503"} 1',
  );
  has(
    'token_exchange_http_request_duration_seconds_count{listener="internal",method="GET",route="/health"} 2',
  );
});

Deno.test("Metrics.tokenCounts() reports issued tokens by grant and detected reuses", () => {
  const m = new Metrics();
  assert.deepEqual(m.tokenCounts(), { issued: {}, refreshReuse: 0 });
  m.tokenIssued("authorization_code");
  m.tokenIssued("refresh_token");
  m.tokenIssued("refresh_token");
  m.refreshReuse();
  assert.deepEqual(m.tokenCounts(), {
    issued: { authorization_code: 1, refresh_token: 2 },
    refreshReuse: 1,
  });
});
