import assert from "node:assert/strict";
import { parseToml } from "./toml.ts";
import { ConfigError } from "./issue.ts";

Deno.test("parseToml() reads tables and arrays", () => {
  // smol-toml returns null-prototype tables (no __proto__ surprises); compare as JSON data.
  const parsed = JSON.parse(
    JSON.stringify(parseToml('[server]\nport = 8080\n[grants]\nlist = ["a"]\n', "t.toml")),
  );
  assert.deepEqual(parsed, {
    server: { port: 8080 },
    grants: { list: ["a"] },
  });
});

Deno.test("parseToml() names the file, line and column of a syntax error", () => {
  assert.throws(() => parseToml("[server]\nport = = 1\n", "te.toml"), (err) => {
    assert.ok(err instanceof ConfigError);
    assert.match(err.message, /te\.toml:2:\d+:/);
    return true;
  });
});
