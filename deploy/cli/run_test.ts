import assert from "node:assert/strict";
import { join } from "node:path";
import { freePort } from "../../tests/support/free_port.ts";
import type { CommandTable } from "../command.ts";
import { runCli } from "./run.ts";
import { captureCli } from "./test_deps.ts";
import { COMMAND_TABLE, planned } from "../commands/table.ts";
import { usageText } from "./usage.ts";

async function withSite(
  text: string | undefined,
  fn: (root: string) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "deploy-run-" }));
  try {
    await Deno.mkdir(join(root, ".git"));
    if (text !== undefined) {
      await Deno.mkdir(join(root, "config"));
      await Deno.writeTextFile(join(root, "config/production.jsonc"), text);
    }
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("runCli(): --help prints usage listing every command and exits 0", async () => {
  const cli = captureCli();
  assert.equal(await runCli(["--help"], cli.deps), 0);
  for (
    const name of [
      "init",
      "config",
      "plan",
      "deploy",
      "bootstrap",
      "status",
      "history",
      "logs",
      "rollback",
      "delete",
      "destroy",
      "preview",
      "pds",
      "analytics",
    ]
  ) {
    assert.match(cli.stdout(), new RegExp(`^ {2}${name}\\b`, "m"), name);
  }
});

Deno.test("runCli(): no command prints the usage text and the error on stderr and exits 1", async () => {
  const cli = captureCli();
  assert.equal(await runCli([], cli.deps), 1);
  assert.equal(cli.stdout(), "");
  assert.equal(
    cli.stderr(),
    `${usageText(COMMAND_TABLE)}\n\n` +
      "error: no command given\nhint: run `deploy --help` for the list of commands\n",
  );
  const json = captureCli();
  assert.equal(await runCli(["--json"], json.deps), 1);
  assert.match(json.stderr(), /^Usage: deploy <command>/);
  assert.equal(JSON.parse(json.stdout()).error.code, "usage");
});

Deno.test("runCli(): a registered but unbuilt command fails honestly in two lines", async () => {
  const cli = captureCli({ commands: { groups: [], commands: [planned("later", "x")] } });
  assert.equal(await runCli(["later", "staging"], cli.deps), 1);
  assert.equal(
    cli.stderr(),
    "error: `deploy later` is not available in this version\nhint: see docs/cli.md for the commands this version supports\n",
  );
});

Deno.test("runCli(): --json errors also go to stdout as data", async () => {
  const cli = captureCli({ commands: { groups: [], commands: [planned("later", "x")] } });
  assert.equal(await runCli(["later", "--json"], cli.deps), 1);
  assert.equal(JSON.parse(cli.stdout()).error.code, "not_implemented");
});

Deno.test("runCli(): an unexpected error is one line plus a hint, stack only with DEBUG", async () => {
  const table: CommandTable = {
    groups: [],
    commands: [{ name: "boom", summary: "x", run: () => Promise.reject(new TypeError("kaput")) }],
  };
  const quiet = captureCli({ commands: table });
  assert.equal(await runCli(["boom"], quiet.deps), 1);
  assert.equal(quiet.stderr().split("\n").filter(Boolean).length, 2);
  assert.match(quiet.stderr(), /^error: unexpected error: kaput$/m);
  assert.doesNotMatch(quiet.stderr(), /at /);
  const loud = captureCli({ commands: table, environ: { DEBUG: "1" } });
  assert.equal(await runCli(["boom"], loud.deps), 1);
  assert.match(loud.stderr(), /TypeError: kaput\n\s+at /);
});

Deno.test("runCli(): colour only on a terminal and never with NO_COLOR or --plain", async () => {
  const ESC = "\x1b[";
  const tty = captureCli({ stdoutIsTty: true });
  await runCli(["bootstrap"], tty.deps);
  assert.ok(tty.stderr().startsWith(`${ESC}31merror:`));
  const noColor = captureCli({ stdoutIsTty: true, environ: { NO_COLOR: "1" } });
  await runCli(["bootstrap"], noColor.deps);
  assert.ok(!noColor.stderr().includes(ESC));
  const plain = captureCli({ stdoutIsTty: true });
  await runCli(["bootstrap", "--plain"], plain.deps);
  assert.ok(!plain.stderr().includes(ESC));
  const piped = captureCli({ stdoutIsTty: false });
  await runCli(["bootstrap"], piped.deps);
  assert.ok(!piped.stderr().includes(ESC));
});

Deno.test("runCli() config: prints the resolved config with derived names as JSON", async () => {
  await withSite('{ "siteName": "blog", "domain": "blog.example.com" }', async (root) => {
    const cli = captureCli({ cwd: root, environ: { AWS_ACCOUNT_ID: "123456789012" } });
    assert.equal(await runCli(["config"], cli.deps), 0);
    const json = JSON.parse(cli.stdout());
    assert.equal(json.env, "production");
    assert.equal(json.siteName, "blog");
    assert.equal(json.app, "blog.example.com");
    assert.equal(json.microvm.memory, 4);
    assert.equal(json.names.bucket, "production-blog-123456789012");
    assert.deepEqual(json.names.tags, { app: "blog.example.com", environment: "production" });
  });
});

Deno.test("runCli() config: --domain beats the domain key", async () => {
  await withSite('{ "siteName": "blog", "domain": "old.example.com" }', async (root) => {
    const cli = captureCli({ cwd: join(root) });
    assert.equal(await runCli(["config", "--domain", "new.example.com"], cli.deps), 0);
    assert.equal(JSON.parse(cli.stdout()).domain, "new.example.com");
  });
});

Deno.test("runCli() config: every issue listed, exit 1", async () => {
  await withSite(
    '{ "siteName": "Blog", "microvm": { "memory": 3 }, "regoin": "x" }',
    async (root) => {
      const cli = captureCli({ cwd: root });
      assert.equal(await runCli(["config"], cli.deps), 1);
      assert.equal(cli.stdout(), "");
      const err = cli.stderr();
      assert.match(err, /^error: invalid configuration in .*config\/production\.jsonc$/m);
      assert.match(err, /^ {2}- regoin: unknown key \(did you mean "region"\?\)$/m);
      assert.match(err, /^ {2}- siteName: must match/m);
      assert.match(err, /^ {2}- microvm\.memory: must be one of 0\.5, 1, 2, 4, 8 \(got 3\)$/m);
    },
  );
});

Deno.test("runCli(): AWS_ACCOUNT_ID that is not 12 digits is a usage error", async () => {
  await withSite('{ "siteName": "blog" }', async (root) => {
    const cli = captureCli({ cwd: root, environ: { AWS_ACCOUNT_ID: "12" } });
    assert.equal(await runCli(["config"], cli.deps), 1);
    assert.match(cli.stderr(), /AWS_ACCOUNT_ID must be 12 digits/);
  });
});

Deno.test("runCli(): a broken pds block does not block config, but fails a pds command", async () => {
  await withSite('{ "siteName": "blog", "pds": { "name": "" } }', async (root) => {
    const cli = captureCli({ cwd: root });
    assert.equal(await runCli(["config"], cli.deps), 0);
    const table: CommandTable = {
      groups: [{ name: "pds", summary: "publishing" }],
      commands: [{ name: "pds init", summary: "x", run: async (ctx) => void (await ctx.pds()) }],
    };
    const pds = captureCli({ cwd: root, commands: table });
    assert.equal(await runCli(["pds", "init"], pds.deps), 1);
    assert.match(pds.stderr(), /^ {2}- pds\.name: must be non-empty/m);
  });
});

/** Runs `argv` in `root` with the real command table; exit code, stdout, stderr. */
async function runIn(root: string, argv: string[]) {
  // No AWS_ACCOUNT_ID and no lookup: an AWS command stops at account_unknown, after loading
  // the configuration and before any client is built (nothing leaves the machine).
  const cli = captureCli({ cwd: root });
  const code = await runCli(argv, cli.deps);
  return { code, stdout: cli.stdout(), stderr: cli.stderr() };
}

Deno.test("runCli(): pds commands check the pds section first, then ask for what is missing", async () => {
  const subs = [
    ["keygen"],
    ["login", "--identifier", "a.test"],
    ["init"],
    ["sync"],
    ["secret", "status"],
  ];
  await withSite('{ "siteName": "blog", "pds": { "name": "" } }', async (root) => {
    for (const sub of subs) {
      const r = await runIn(root, ["pds", ...sub, "--json"]);
      assert.equal(r.code, 1);
      const error = JSON.parse(r.stdout).error;
      assert.equal(error.code, "config_invalid", sub[0]);
      assert.deepEqual(error.issues.map((i: { path: string }) => i.path), ["pds.name"]);
    }
  });
  await withSite('{ "siteName": "blog", "pds": { "name": "My blog" } }', async (root) => {
    const error = JSON.parse((await runIn(root, ["pds", "keygen", "--json"])).stdout).error;
    assert.equal(error.code, "pds_not_configured");
    assert.match(error.message, /has no `domain`/);
  });
  await withSite('{ "siteName": "blog", "domain": "blog.example" }', async (root) => {
    const error = JSON.parse((await runIn(root, ["pds", "init", "--json"])).stdout).error;
    assert.equal(error.code, "pds_not_configured");
    assert.match(error.message, /has no `pds` section/);
  });
});

const WITH_ANALYTICS = JSON.stringify({
  imports: { "@org/deploy-analytics": "jsr:@org/deploy-analytics@^0.1.0" },
});

Deno.test("runCli(): without the plugin, analytics commands say how to install it", async () => {
  await withSite('{ "siteName": "blog", "analytics": { "tabel": "x" } }', async (root) => {
    for (const sub of ["bootstrap", "status", "dashboard"]) {
      const r = await runIn(root, ["analytics", sub, "--json"]);
      assert.equal(r.code, 1);
      const error = JSON.parse(r.stdout).error;
      assert.equal(error.code, "plugin_not_installed", sub);
      assert.equal(
        error.hint,
        "run `deploy plugin add analytics` (it adds @org/deploy-analytics to deno.json)",
      );
    }
  });
});

Deno.test("runCli(): with the plugin, analytics commands reject unknown analytics keys naming them all", async () => {
  const bad = '{ "siteName": "blog", "analytics": { "tabel": "x", "dashboard": { "prot": 1 } } }';
  await withSite(bad, async (root) => {
    await Deno.writeTextFile(join(root, "deno.json"), WITH_ANALYTICS);
    for (const sub of ["bootstrap", "status", "destroy", "dashboard"]) {
      const r = await runIn(root, ["analytics", sub, "--json", "--yes"]);
      const error = JSON.parse(r.stdout).error;
      assert.equal(error.code, "config_invalid", sub);
      assert.deepEqual(error.issues.map((i: { path: string }) => i.path), [
        "analytics.tabel",
        "analytics.dashboard.prot",
      ]);
    }
    // Built-in commands are not affected by the broken section.
    assert.equal((await runIn(root, ["config"])).code, 0);
  });
  const port = freePort();
  await withSite(
    `{ "siteName": "blog", "analytics": { "dashboard": { "port": ${port} } } }`,
    async (root) => {
      await Deno.writeTextFile(join(root, "deno.json"), WITH_ANALYTICS);
      // A valid section: the dashboard serves its page and goes on to open the site for AWS,
      // which stops at account_unknown (no account here); the page would show that. An
      // interrupt that has already happened stops it once it has said so.
      const cli = captureCli({ cwd: root, signal: AbortSignal.abort() });
      const code = await runCli(["analytics", "dashboard", "--json"], cli.deps);
      assert.equal(code, 0, cli.stderr());
      const out = JSON.parse(cli.stdout());
      assert.equal(out.url, `http://127.0.0.1:${port}/`);
      assert.equal(out.engine.ok, false);
      assert.equal(out.engine.error.code, "account_unknown");
    },
  );
});

Deno.test("runCli(): help lists the pds subcommands and the installed plugin's commands", async () => {
  const pds = captureCli();
  assert.equal(await runCli(["pds", "--help"], pds.deps), 0);
  for (const sub of ["keygen", "login", "init", "sync", "secret <action>"]) {
    assert.match(pds.stdout(), new RegExp(`^ {2}pds ${sub} \\[env\\]`, "m"));
  }
  assert.doesNotMatch(pds.stdout(), /not available/);
  await withSite('{ "siteName": "blog" }', async (root) => {
    await Deno.writeTextFile(join(root, "deno.json"), WITH_ANALYTICS);
    const analytics = captureCli({ cwd: root });
    assert.equal(await runCli(["analytics", "--help"], analytics.deps), 0);
    for (const sub of ["bootstrap", "status", "destroy", "dashboard", "backfill"]) {
      assert.match(analytics.stdout(), new RegExp(`^ {2}analytics ${sub} \\[env\\]`, "m"));
    }
  });
});

Deno.test("runCli(): broken pds and analytics sections never block config, plan or deploy", async () => {
  const text = '{ "siteName": "blog", "pds": { "name": " ", "x": 1 }, "analytics": { "nope": 1 } }';
  await withSite(text, async (root) => {
    const config = await runIn(root, ["config"]);
    assert.equal(config.code, 0, config.stderr);
    const report = JSON.parse(config.stdout);
    assert.deepEqual(report.pds, { name: " ", x: 1 }, "printed as written");
    assert.deepEqual(report.analytics, { nope: 1 });
    assert.deepEqual(report.issues.map((i: { path: string }) => i.path), [
      "pds.x",
      "pds.name",
      "analytics.nope",
    ]);
    assert.match(config.stderr, /pds\.name: must be non-empty/);
    for (const argv of [["plan"], ["deploy", "--builder", "local"], ["status"]]) {
      const r = await runIn(root, [...argv, "--json"]);
      // Past the configuration: the next thing these need is the AWS account.
      assert.equal(JSON.parse(r.stdout).error?.code, "account_unknown", r.stderr);
      assert.doesNotMatch(r.stderr, /pds|analytics/);
    }
  });
});

Deno.test("runCli() config: valid pds and analytics are printed resolved, names follow them", async () => {
  const text = `{
    "siteName": "blog",
    "pds": { "name": "My blog", "secretName": "custom/atproto" },
    "analytics": { "table": "views", "bots": "filter", "dashboard": { "port": 5000 } }
  }`;
  await withSite(text, async (root) => {
    const r = await runIn(root, ["config"]);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.deepEqual(report.pds, {
      name: "My blog",
      handleResolver: "https://public.api.bsky.app",
      secretName: "custom/atproto",
      announce: { enabled: false, template: "{title}\n\n{description}\n\n{url}" },
      comments: false,
      appview: "https://public.api.bsky.app",
    });
    assert.deepEqual(report.analytics, {
      tableBucket: "production-blog-analytics",
      namespace: "web",
      table: "views",
      bots: "filter",
      saltSecretName: "blog/production/analytics-salt",
      dashboard: { port: 5000 },
    });
    assert.equal(report.names.pdsSecretName, "custom/atproto");
    assert.deepEqual(report.names.analytics, {
      tableBucket: "production-blog-analytics",
      namespace: "web",
      table: "views",
      bots: "filter",
      saltSecretName: "blog/production/analytics-salt",
      dashboardPort: 5000,
    });
    assert.equal(report.issues, undefined);
  });
});

Deno.test("runCli(): `deploy <env>` deploys that environment when its config exists", async () => {
  await withSite('{ "siteName": "blog" }', async (root) => {
    // Past parsing and the configuration, `deploy production` is the deploy command: the next
    // thing it needs is the AWS account, exactly like `deploy deploy production`.
    for (const argv of [["production"], ["deploy", "production"]]) {
      const r = await runIn(root, [...argv, "--builder", "local", "--json"]);
      assert.equal(r.code, 1);
      assert.equal(JSON.parse(r.stdout).error?.code, "account_unknown", r.stderr);
    }
  });
});

Deno.test("runCli(): `deploy production` also takes ops.config.jsonc; another env needs its own file", async () => {
  await withSite(undefined, async (root) => {
    await Deno.writeTextFile(join(root, "ops.config.jsonc"), '{ "siteName": "blog" }');
    const production = await runIn(root, ["production", "--json"]);
    assert.equal(JSON.parse(production.stdout).error?.code, "account_unknown");
    const staging = await runIn(root, ["staging", "--json"]);
    const error = JSON.parse(staging.stdout).error;
    assert.equal(error.code, "config_not_found");
    assert.match(
      error.message,
      /no configuration for environment "staging": looked for .*config\/staging\.jsonc$/,
    );
  });
});

Deno.test("runCli(): a word close to a command stays an unknown command with the suggestion", async () => {
  await withSite('{ "siteName": "blog" }', async (root) => {
    const r = await runIn(root, ["deploi", "--json"]);
    const error = JSON.parse(r.stdout).error;
    assert.equal(error.code, "unknown_command");
    assert.match(error.hint, /did you mean `deploy deploy`/);
  });
});

Deno.test("runCli(): a hostile environment name is a usage error before any file is looked at", async () => {
  await withSite('{ "siteName": "blog" }', async (root) => {
    await Deno.mkdir(join(root, "sub"));
    // What `--env ../../outside/canary` would open from <root>/sub: <root>/../outside/canary.jsonc.
    const outside = join(root, "..", `outside-${crypto.randomUUID()}`);
    await Deno.mkdir(outside);
    await Deno.writeTextFile(join(outside, "canary.jsonc"), '{ "siteName": "canary" }');
    try {
      for (
        const argv of [
          ["config", "--env", `../../${outside.split("/").at(-1)}/canary`, "--json"],
          ["config", "x".repeat(5000), "--json"],
          ["a".repeat(5000), "--json"],
        ]
      ) {
        const touched: string[] = [];
        const cli = captureCli({ cwd: join(root, "sub") });
        const files = cli.deps.files;
        cli.deps.files = {
          ...files,
          exists: (p) => (touched.push(p), files.exists(p)),
          readTextFile: (p) => (touched.push(p), files.readTextFile(p)),
        };
        const code = await runCli(argv, cli.deps);
        assert.equal(code, 1);
        const error = JSON.parse(cli.stdout()).error;
        assert.ok(["usage", "unknown_command"].includes(error.code), JSON.stringify(error));
        assert.doesNotMatch(cli.stderr(), /this is a bug|unexpected error/);
        assert.deepEqual(
          touched.filter((p) => p.endsWith(".jsonc")),
          [],
          `no configuration file looked for: ${touched.join(", ").slice(0, 300)}`,
        );
      }
    } finally {
      await Deno.remove(outside, { recursive: true });
    }
  });
});
