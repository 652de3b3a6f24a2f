import assert from "node:assert/strict";
import { join } from "node:path";
import { runCli } from "../cli/run.ts";
import { captureCli } from "../cli/test_deps.ts";
import { COMMAND_TABLE } from "../commands/table.ts";
import { DeployError } from "../errors.ts";
import type { DeployPlugin, PluginHost } from "./contract.ts";
import { pluginUnavailable, withPlugins } from "./commands.ts";
import { usageText } from "../cli/usage.ts";

interface DemoConfig {
  greeting: string;
}

const runs: { config: DemoConfig; env: string }[] = [];
const host: PluginHost = { openSite: () => Promise.reject(new Error("not used")) };

const demo: DeployPlugin<DemoConfig> = {
  namespace: "demo",
  summary: "a demonstration plugin",
  configKey: "analytics",
  schema: {
    kind: "object",
    optional: true,
    description: "The demonstration's settings.",
    fields: { greeting: { kind: "string", default: "hi", description: "What it says." } },
  },
  errorCodes: [],
  commands: [{
    name: "hello",
    summary: "greet",
    run(ctx, config, given) {
      assert.equal(given, host);
      runs.push({ config, env: ctx.env });
      ctx.out.line(config.greeting);
      return Promise.resolve(0);
    },
  }],
  nodes: [],
};

async function inSite(config: string, fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "deploy-plugin-" }));
  try {
    await Deno.mkdir(join(root, ".git"));
    await Deno.mkdir(join(root, "config"));
    await Deno.writeTextFile(join(root, "config/staging.jsonc"), config);
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

const installed = {
  name: "demo",
  key: "@org/deploy-demo",
  specifier: "jsr:@org/deploy-demo@^0.1.0",
};

Deno.test("withPlugins(): a plugin's command runs with its section resolved and the host", async () => {
  runs.length = 0;
  await inSite(
    '{ "siteName": "blog", "analytics": { "greeting": "hello there" } }',
    async (root) => {
      const table = withPlugins(
        COMMAND_TABLE,
        [{ installed, plugin: demo as DeployPlugin }],
        () => host,
      );
      const cli = captureCli({ cwd: root, commands: table });
      assert.equal(await runCli(["demo", "hello", "staging"], cli.deps), 0, cli.stderr());
      assert.equal(cli.stdout(), "hello there\n");
      assert.deepEqual(runs, [{ config: { greeting: "hello there" }, env: "staging" }]);
    },
  );
});

Deno.test("withPlugins(): a broken section fails only the plugin's command, naming every key", async () => {
  runs.length = 0;
  await inSite('{ "siteName": "blog", "analytics": { "colour": 1, "size": 2 } }', async (root) => {
    const table = withPlugins(
      COMMAND_TABLE,
      [{ installed, plugin: demo as DeployPlugin }],
      () => host,
    );
    const cli = captureCli({ cwd: root, commands: table });
    assert.equal(await runCli(["demo", "hello", "staging"], cli.deps), 1);
    assert.match(cli.stderr(), /error: invalid `analytics` section/);
    assert.match(cli.stderr(), /analytics\.colour: unknown key/);
    assert.match(cli.stderr(), /analytics\.size: unknown key/);
    assert.deepEqual(runs, []);
    const config = captureCli({ cwd: root, commands: table });
    assert.equal(await runCli(["config", "staging"], config.deps), 0);
  });
});

Deno.test("withPlugins(): help lists plugin groups, loaded, broken and not installed", () => {
  const broken = {
    installed: { ...installed, name: "gone", key: "@org/deploy-gone" },
    error: new DeployError("plugin_invalid", "cannot load"),
  };
  const table = withPlugins(
    { commands: [], groups: [] },
    [{ installed, plugin: demo as DeployPlugin }, broken],
    () => host,
  );
  assert.deepEqual(table.groups.map((g) => g.name), ["demo", "gone", "analytics"]);
  assert.deepEqual(table.commands.map((c) => c.name), ["demo hello"]);
  assert.match(table.groups[2]!.summary, /not installed: `deploy plugin add analytics`/);
  // Help names a plugin's state once, never "not available in this version" on top of it.
  const help = usageText(table);
  assert.match(
    help,
    /analytics <command> … +.*\(plugin, not installed: `deploy plugin add analytics`\)$/m,
  );
  assert.doesNotMatch(help, /not available in this version/);
});

Deno.test("pluginUnavailable(): not installed says how to install; broken says why", () => {
  const missing = pluginUnavailable("analytics", []);
  assert.equal(missing?.code, "plugin_not_installed");
  assert.equal(
    missing?.hint,
    "run `deploy plugin add analytics` (it adds @org/deploy-analytics to deno.json)",
  );
  const error = new DeployError("plugin_invalid", "cannot load");
  assert.equal(
    pluginUnavailable(
      "gone",
      [{ installed, error }].map((d) => ({ ...d, installed: { ...d.installed, name: "gone" } })),
    ),
    error,
  );
  assert.equal(pluginUnavailable("demo", [{ installed, plugin: demo as DeployPlugin }]), undefined);
  assert.equal(pluginUnavailable("bootstrap", []), undefined);
});
