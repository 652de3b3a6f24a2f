import assert from "node:assert/strict";
import { DEFAULT_OTLP_PROTOCOL, otlpProtocolFromEnv } from "./otlp_protocol.ts";

Deno.test("otlpProtocolFromEnv(): http/json unless a variable asks for another", () => {
  assert.equal(DEFAULT_OTLP_PROTOCOL, "http/json");
  assert.deepEqual(otlpProtocolFromEnv(undefined, undefined), { protocol: "http/json" });
  assert.deepEqual(otlpProtocolFromEnv("", " "), { protocol: "http/json" });
  assert.deepEqual(otlpProtocolFromEnv(undefined, "http/json"), { protocol: "http/json" });
});

Deno.test("otlpProtocolFromEnv(): http/protobuf is spoken when asked for, the traces variable first", () => {
  assert.deepEqual(otlpProtocolFromEnv(undefined, "http/protobuf"), { protocol: "http/protobuf" });
  assert.deepEqual(otlpProtocolFromEnv(" HTTP/Protobuf ", "http/json"), {
    protocol: "http/protobuf",
  });
  assert.deepEqual(otlpProtocolFromEnv("http/json", "http/protobuf"), { protocol: "http/json" });
});

Deno.test("otlpProtocolFromEnv(): another protocol is named in a warning, and http/json used", () => {
  const grpc = otlpProtocolFromEnv("grpc", "http/protobuf");
  assert.equal(grpc.protocol, "http/json");
  assert.match(
    grpc.warning!,
    /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc is not supported .* 4318 by default\); exporting http\/json$/,
  );
  assert.match(
    otlpProtocolFromEnv(undefined, "thrift")!.warning!,
    /^OTEL_EXPORTER_OTLP_PROTOCOL=thrift /,
  );
});
