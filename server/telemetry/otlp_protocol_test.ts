import assert from "node:assert/strict";
import { OTLP_PROTOCOL, otlpProtocolWarning } from "./otlp_protocol.ts";

Deno.test("otlpProtocolWarning(): none for http/json or no protocol asked", () => {
  assert.equal(OTLP_PROTOCOL, "http/json");
  assert.equal(otlpProtocolWarning(undefined, undefined), undefined);
  assert.equal(otlpProtocolWarning("", " "), undefined);
  assert.equal(otlpProtocolWarning(undefined, "http/json"), undefined);
  assert.equal(otlpProtocolWarning("HTTP/JSON", "grpc"), undefined);
});

Deno.test("otlpProtocolWarning(): names the variable and the protocol it cannot speak", () => {
  assert.match(
    otlpProtocolWarning(undefined, "http/protobuf")!,
    /^OTEL_EXPORTER_OTLP_PROTOCOL=http\/protobuf is not supported .*; exporting http\/json$/,
  );
  // The traces variable wins over the general one, either way.
  assert.match(
    otlpProtocolWarning("grpc", "http/json")!,
    /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc /,
  );
});
