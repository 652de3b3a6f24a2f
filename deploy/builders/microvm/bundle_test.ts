import assert from "node:assert/strict";
import { unzipSync } from "fflate";
import { buildAgentBundle, hashFiles, importSpecifiers } from "./bundle.ts";
import { AGENT_DENO_VERSION, agentDockerfile } from "./dockerfile.ts";
import { AGENT_HOOK_PORT } from "./agent/hooks.ts";

Deno.test("importSpecifiers() finds static, type, re-export and dynamic imports but not JSDoc examples", () => {
  const src = `/**\n * import { x } from "./example.ts";\n */\nimport { a } from "./a.ts";\n` +
    `import type {\n  B,\n} from "../b.ts";\nexport * from "./c.ts";\nconst d = await import("./d.ts");\n`;
  assert.deepEqual(importSpecifiers(src), ["./a.ts", "../b.ts", "./c.ts", "./d.ts"]);
});

Deno.test("hashFiles() depends on paths and bodies, not on insertion order", () => {
  const e = new TextEncoder();
  const a = new Map([["x", e.encode("1")], ["y", e.encode("2")]]);
  const b = new Map([["y", e.encode("2")], ["x", e.encode("1")]]);
  assert.equal(hashFiles(a), hashFiles(b));
  assert.notEqual(hashFiles(a), hashFiles(new Map([["x", e.encode("1")], ["y", e.encode("3")]])));
});

Deno.test("buildAgentBundle() holds the agent's module graph, an import map, and is reproducible", async () => {
  const one = await buildAgentBundle();
  const two = await buildAgentBundle();
  assert.equal(one.hash, two.hash);
  assert.deepEqual(one.zip, two.zip);
  for (
    const path of [
      "deploy/builders/microvm/agent/main.ts",
      "deploy/sync/engine.ts",
      "shared/mod.ts",
      "deno.json",
    ]
  ) {
    assert.ok(one.files.has(path), path);
  }
  assert.ok(![...one.files.keys()].some((p) => p.endsWith("_test.ts")));
  const config = JSON.parse(new TextDecoder().decode(one.files.get("deno.json")));
  assert.equal(config.imports["@org/shared"], "./shared/mod.ts");
  assert.match(config.imports["@aws-sdk/client-s3"], /^npm:@aws-sdk\/client-s3@/);
});

Deno.test("buildAgentBundle() puts the generated Dockerfile at the root of the zip", async () => {
  const bundle = await buildAgentBundle();
  const zipped = unzipSync(bundle.zip);
  assert.ok("Dockerfile" in zipped, Object.keys(zipped).join(", "));
  const expected = agentDockerfile({
    denoVersion: AGENT_DENO_VERSION,
    entry: bundle.entry,
    port: AGENT_HOOK_PORT,
  });
  assert.equal(new TextDecoder().decode(zipped["Dockerfile"]), expected);
  assert.equal(AGENT_DENO_VERSION, "2.9.6");
  // Everything the Dockerfile's `COPY .` brings in is what the bundle holds, nothing else.
  assert.deepEqual(Object.keys(zipped).sort(), [...bundle.files.keys()].sort());
});

Deno.test("buildAgentBundle() hash and zip change when the Dockerfile changes", async () => {
  const current = await buildAgentBundle();
  const other = await buildAgentBundle({ denoVersion: "2.9.7" });
  assert.notEqual(other.hash, current.hash);
  assert.notDeepEqual(other.zip, current.zip);
  assert.match(new TextDecoder().decode(other.files.get("Dockerfile")), /deno@2\.9\.7 /);
  // Only the Dockerfile differs.
  for (const [path, body] of current.files) {
    if (path !== "Dockerfile") assert.deepEqual(other.files.get(path), body, path);
  }
});
