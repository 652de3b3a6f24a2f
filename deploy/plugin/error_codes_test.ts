import assert from "node:assert/strict";
import { FIRST_PARTY_SECTIONS } from "../config/plugin_section.ts";
import { GREETER_ERROR_CODES } from "./_fixture_second_plugin.ts";

// The core's codes are a type (`DeployErrorCode`), so they are read from its declaration.
async function coreCodes(): Promise<Set<string>> {
  const source = await Deno.readTextFile(new URL("../errors.ts", import.meta.url));
  const start = source.indexOf("export type DeployErrorCode =");
  // The union ends at its first member line that closes with `;` (comments hold `;` too).
  const end = source.slice(start).search(/^\s*\|\s*"[a-z0-9_]+";$/m);
  const body = source.slice(start, start + end + source.slice(start + end).indexOf(";"));
  return new Set([...body.matchAll(/^\s*\|\s*"([a-z0-9_]+)"/gm)].map((m) => m[1]!));
}

Deno.test("plugin error codes: no plugin code is a core code, and no two plugins share one", async () => {
  const core = await coreCodes();
  assert.ok(core.has("config_invalid") && core.has("internal"), "the core's list was read");
  const owners = new Map<string, string>();
  const plugins = [
    ...FIRST_PARTY_SECTIONS.map((s) => [s.namespace, s.errorCodes] as const),
    ["greeter (fixture)", Object.values(GREETER_ERROR_CODES)] as const,
  ];
  for (const [plugin, codes] of plugins) {
    for (const code of codes) {
      assert.ok(!core.has(code), `${plugin}'s ${code} is also a core code`);
      const other = owners.get(code);
      assert.equal(other, undefined, `${plugin} and ${other} both own ${code}`);
      owners.set(code, plugin);
    }
  }
  assert.ok(owners.size > 0);
});
