import assert from "node:assert/strict";
import { interpolate } from "./interpolate.ts";

Deno.test("interpolate() replaces placeholders at any depth", () => {
  const { value, issues } = interpolate(
    { a: "x-${A}-y", list: ["${B}"], n: 3, nested: { c: "${A}${B}" } },
    { A: "1", B: "2" },
  );
  assert.deepEqual(value, { a: "x-1-y", list: ["2"], n: 3, nested: { c: "12" } });
  assert.deepEqual(issues, []);
});

Deno.test("interpolate() reports every unset variable with its key path", () => {
  const { issues } = interpolate(
    { internal_api: { shared_secret: "${SECRET}" }, p: ["${X}"] },
    {},
  );
  assert.deepEqual(issues, [
    { path: "internal_api.shared_secret", message: "environment variable SECRET is not set" },
    { path: "p[0]", message: "environment variable X is not set" },
  ]);
});

Deno.test("interpolate() leaves text without placeholders alone", () => {
  assert.deepEqual(interpolate("$HOME and {X}", {}).value, "$HOME and {X}");
});
