import assert from "node:assert/strict";
import {
  DEFAULT_SAMPLER,
  parseTraceparent,
  sampled,
  samplerFromEnv,
  traceIdRatioSampled,
} from "./sampler.ts";

const TRACE = "0af7651916cd43dd8448eb211c80319c";
const SPAN = "b7ad6b7169203331";

Deno.test("samplerFromEnv() defaults to parentbased_always_on, as the specification does", () => {
  assert.deepEqual(samplerFromEnv(undefined, undefined), { config: DEFAULT_SAMPLER });
  assert.deepEqual(samplerFromEnv("", "0.5"), { config: DEFAULT_SAMPLER });
});

Deno.test("samplerFromEnv() reads the ratio of the traceidratio samplers", () => {
  assert.deepEqual(samplerFromEnv("parentbased_traceidratio", "0.1").config, {
    name: "parentbased_traceidratio",
    ratio: 0.1,
  });
  assert.deepEqual(samplerFromEnv("TraceIdRatio", "0").config, { name: "traceidratio", ratio: 0 });
  // Without an argument the specification's ratio is 1.
  assert.equal(samplerFromEnv("traceidratio", undefined).config.ratio, 1);
});

Deno.test("samplerFromEnv() warns and falls back for an unknown sampler or a bad ratio", () => {
  const unknown = samplerFromEnv("jaeger_remote", undefined);
  assert.deepEqual(unknown.config, DEFAULT_SAMPLER);
  assert.match(unknown.warning!, /jaeger_remote is not supported/);
  for (const arg of ["1.5", "-0.1", "ten"]) {
    const bad = samplerFromEnv("parentbased_traceidratio", arg);
    assert.equal(bad.config.ratio, 1);
    assert.match(bad.warning!, /not a ratio between 0 and 1/);
  }
});

Deno.test("parseTraceparent() reads a W3C traceparent and its sampled flag", () => {
  assert.deepEqual(parseTraceparent(`00-${TRACE}-${SPAN}-01`), {
    traceId: TRACE,
    spanId: SPAN,
    sampled: true,
  });
  assert.equal(parseTraceparent(`00-${TRACE}-${SPAN}-00`)?.sampled, false);
  // Other flags than bit 0 do not make a trace sampled.
  assert.equal(parseTraceparent(`00-${TRACE}-${SPAN}-02`)?.sampled, false);
  assert.equal(parseTraceparent(`00-${TRACE}-${SPAN}-03`)?.sampled, true);
  // A later version may append fields.
  assert.equal(parseTraceparent(`01-${TRACE}-${SPAN}-01-extra`)?.traceId, TRACE);
});

Deno.test("parseTraceparent() treats an invalid header as none", () => {
  for (
    const bad of [
      null,
      "",
      `ff-${TRACE}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
      `00-${"0".repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${"0".repeat(16)}-01`,
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}`,
    ]
  ) {
    assert.equal(parseTraceparent(bad), undefined, String(bad));
  }
});

Deno.test("traceIdRatioSampled() compares the id's last 56 bits with (1 - ratio) x 2^56", () => {
  const low = "0".repeat(18) + "00000000000000";
  const high = "0".repeat(18) + "ffffffffffffff";
  const middle = "0".repeat(18) + "80000000000000";
  assert.equal(traceIdRatioSampled(high, 0.1), true);
  assert.equal(traceIdRatioSampled(low, 0.1), false);
  assert.equal(traceIdRatioSampled(middle, 0.5), true);
  assert.equal(traceIdRatioSampled("0".repeat(18) + "7fffffffffffff", 0.5), false);
  assert.equal(traceIdRatioSampled(low, 1), true);
  assert.equal(traceIdRatioSampled(high, 0), false);
  // Too small to tell from 0 in 56 bits: nothing is sampled, not even the highest id.
  assert.equal(traceIdRatioSampled("f".repeat(32), 1e-20), false);
  assert.equal(traceIdRatioSampled("f".repeat(32), 2 ** -50), true);
});

Deno.test("traceIdRatioSampled() samples about the ratio of random trace ids", () => {
  let n = 0;
  const total = 20_000;
  for (let i = 0; i < total; i++) {
    const id = Array.from(
      crypto.getRandomValues(new Uint8Array(16)),
      (b) => b.toString(16).padStart(2, "0"),
    ).join("");
    if (traceIdRatioSampled(id, 0.1)) n++;
  }
  // 10 % of 20,000 is 2,000 with a standard deviation of about 42.
  assert.ok(n > 1_750 && n < 2_250, `${n} of ${total}`);
});

Deno.test("sampled(): a parent-based sampler follows each traceparent flag, whatever the ratio", () => {
  for (const ratio of [0, 0.1, 1]) {
    const config = { name: "parentbased_traceidratio", ratio } as const;
    assert.equal(sampled(config, { sampled: true }, TRACE), true, `ratio ${ratio}`);
    assert.equal(sampled(config, { sampled: false }, TRACE), false, `ratio ${ratio}`);
  }
  for (const name of ["parentbased_always_on", "parentbased_always_off"] as const) {
    assert.equal(sampled({ name, ratio: 1 }, { sampled: true }, TRACE), true, name);
    assert.equal(sampled({ name, ratio: 1 }, { sampled: false }, TRACE), false, name);
  }
});

Deno.test("sampled(): without a parent the root sampler decides", () => {
  const high = "0".repeat(18) + "ffffffffffffff";
  const low = "0".repeat(32 - 1) + "1";
  const ratio = { name: "parentbased_traceidratio", ratio: 0.1 } as const;
  assert.equal(sampled(ratio, undefined, high), true);
  assert.equal(sampled(ratio, undefined, low), false);
  assert.equal(sampled({ name: "parentbased_always_on", ratio: 1 }, undefined, low), true);
  assert.equal(sampled({ name: "parentbased_always_off", ratio: 1 }, undefined, high), false);
});

Deno.test("sampled(): the samplers that are not parent-based ignore the parent's flag", () => {
  const low = "0".repeat(32 - 1) + "1";
  assert.equal(sampled({ name: "always_off", ratio: 1 }, { sampled: true }, TRACE), false);
  assert.equal(sampled({ name: "always_on", ratio: 1 }, { sampled: false }, TRACE), true);
  assert.equal(sampled({ name: "traceidratio", ratio: 0.1 }, { sampled: true }, low), false);
});
