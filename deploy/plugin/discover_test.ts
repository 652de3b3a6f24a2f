import assert from "node:assert/strict";
import { COMMAND_TABLE } from "../commands/table.ts";
import { DeployError } from "../errors.ts";
import { discoverPlugins, needsPlugins } from "./discover.ts";

Deno.test("needsPlugins(): built-in commands load none; other words and full help may", () => {
  const t = COMMAND_TABLE;
  assert.equal(needsPlugins(["bootstrap"], false, t), false);
  assert.equal(needsPlugins(["bootstrap"], true, t), false);
  assert.equal(needsPlugins(["config", "staging"], false, t), false);
  assert.equal(needsPlugins(["plugin", "add", "analytics"], false, t), false);
  assert.equal(needsPlugins(["plugin", "list"], false, t), false);
  assert.equal(needsPlugins([], true, t), true);
  assert.equal(needsPlugins([], false, t), false);
  assert.equal(needsPlugins(["reports", "status"], false, t), true);
  // Words that cannot name a plugin never make the CLI read the site's deno.json.
  assert.equal(needsPlugins(["a".repeat(65)], false, t), false);
  assert.equal(needsPlugins(["../x"], false, t), false);
});

const DENO_JSON = JSON.stringify({
  imports: {
    "@org/deploy-good": "jsr:@org/deploy-good@^0.1.0",
    "@org/deploy-broken": "jsr:@org/deploy-broken@^0.1.0",
    "@org/deploy-other": "jsr:@org/deploy-other@^0.1.0",
    "@org/deploy-renamed": "jsr:@org/deploy-renamed@^0.1.0",
  },
});

const plugin = (namespace: string) => ({
  namespace,
  summary: "s",
  configKey: namespace,
  schema: { kind: "object", description: "d", fields: {} },
  errorCodes: [],
  commands: [],
  nodes: [],
});

Deno.test("discoverPlugins() loads each installed plugin by its key, reporting bad ones apart", async () => {
  const imported: string[] = [];
  const found = await discoverPlugins(DENO_JSON, (key) => {
    imported.push(key);
    if (key === "@org/deploy-broken") return Promise.reject(new Error("Module not found"));
    if (key === "@org/deploy-other") return Promise.resolve({ default: { hello: 1 } });
    if (key === "@org/deploy-renamed") return Promise.resolve({ default: plugin("else") });
    return Promise.resolve({ default: plugin("good") });
  });
  assert.deepEqual(imported.sort(), [
    "@org/deploy-broken",
    "@org/deploy-good",
    "@org/deploy-other",
    "@org/deploy-renamed",
  ]);
  assert.deepEqual(found.map((f) => [f.installed.name, "plugin" in f]), [
    ["broken", false],
    ["good", true],
    ["other", false],
    ["renamed", false],
  ]);
  for (const f of found) {
    if ("error" in f) {
      assert.ok(f.error instanceof DeployError);
      assert.equal(f.error.code, "plugin_invalid");
    }
  }
  assert.match(
    (found[0] as { error: DeployError }).error.message,
    /@org\/deploy-broken .* could not be loaded: Module not found/,
  );
});

Deno.test("discoverPlugins() finds none without a deno.json", async () => {
  assert.deepEqual(await discoverPlugins(null, () => Promise.reject(new Error("unused"))), []);
});
