import assert from "node:assert/strict";
import { parseJsonc } from "@org/shared";
import { installedPlugins, pluginImport, withImport } from "./site_imports.ts";

Deno.test("pluginImport() names the package and pins the CLI's version as deno add would", () => {
  assert.deepEqual(pluginImport("analytics", "0.1.0"), [
    "@org/deploy-analytics",
    "jsr:@org/deploy-analytics@^0.1.0",
  ]);
});

Deno.test("installedPlugins() lists only @org/deploy-<name> imports", () => {
  assert.deepEqual(
    installedPlugins({
      imports: {
        "@org/deploy": "jsr:@org/deploy@^0.1.0",
        "@org/deploy-analytics": "jsr:@org/deploy-analytics@^0.1.0",
        "@org/deploy-Bad": "x",
        "astro": "npm:astro@5",
      },
    }),
    [{
      name: "analytics",
      key: "@org/deploy-analytics",
      specifier: "jsr:@org/deploy-analytics@^0.1.0",
    }],
  );
  assert.deepEqual(installedPlugins({}), []);
  assert.deepEqual(installedPlugins(null), []);
});

Deno.test("withImport() adds in key order and removes, keeping comments and other keys", () => {
  const text = `{
  // the site's tasks
  "tasks": { "deploy": "deno run -A jsr:@org/deploy" },
  "imports": {
    "astro": "npm:astro@5.0.0",
    "@org/deploy": "jsr:@org/deploy@^0.1.0"
  }
}
`;
  const [key, spec] = pluginImport("analytics", "0.1.0");
  const added = withImport(text, parseJsonc(text, "deno.json"), key, spec);
  assert.ok(added.includes("// the site's tasks"));
  const parsed = parseJsonc(added, "deno.json") as { imports: Record<string, string> };
  assert.deepEqual(Object.keys(parsed.imports), ["@org/deploy", key, "astro"]);
  const removed = withImport(added, parsed, key, undefined);
  assert.deepEqual(
    (parseJsonc(removed, "deno.json") as { imports: Record<string, string> }).imports,
    { "@org/deploy": "jsr:@org/deploy@^0.1.0", "astro": "npm:astro@5.0.0" },
  );
  assert.deepEqual(
    parseJsonc(withImport("{}", {}, key, spec), "deno.json"),
    { imports: { [key]: spec } },
  );
});
