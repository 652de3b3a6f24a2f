import assert from "node:assert/strict";
import { join } from "node:path";
import {
  deploySourceOf,
  deployTaskCommand,
  deployTaskFlags,
  launcherSource,
  SITE_LAUNCHER,
  siteDeployTaskCommand,
  siteRunTools,
  taskShellWord,
  withDeployTask,
} from "./deploy_task.ts";

Deno.test("deployTaskCommand() is exactly this workspace's deploy task for deploy/main.ts", async () => {
  const root = JSON.parse(await Deno.readTextFile(new URL("../../deno.json", import.meta.url)));
  assert.equal(root.tasks.deploy, deployTaskCommand("deploy/main.ts"));
});

Deno.test("siteDeployTaskCommand() runs the package through the launcher under the narrow flags", () => {
  const command = siteDeployTaskCommand({ kind: "package" }, ["git", "npm", "kill"]);
  assert.equal(
    command,
    ["deno", "run", ...deployTaskFlags(["git", "npm", "kill"]), "./.deploy/launch.ts"].join(" "),
  );
  assert.doesNotMatch(command, /\s-A\s|--allow-all/);
});

Deno.test("siteDeployTaskCommand() from a checkout runs its main.ts with its deno.json and reads it", () => {
  const command = siteDeployTaskCommand({ kind: "checkout", root: "/src/deploy" }, ["git", "kill"]);
  assert.equal(
    command,
    "deno run --config=/src/deploy/deno.json --quiet --no-prompt " +
      "--allow-read=.,/src/deploy,$HOME/.aws,$HOME/.cache/org-deploy " +
      "--allow-write=.,$HOME/.cache/org-deploy " +
      "--allow-env=AWS_*,DEPLOY_BUILDER_BASE_IMAGE,DEBUG,NO_COLOR,HOME,USERPROFILE,HOMEPATH,HOMEDRIVE,_X_AMZN_TRACE_ID,LOG_TOKENS,LOG_STREAM " +
      "--allow-sys=osRelease --allow-net --allow-run=git,kill /src/deploy/deploy/main.ts",
  );
  assert.deepEqual(deploySourceOf("file:///src/deploy/deploy/config.schema.json"), {
    kind: "checkout",
    root: "/src/deploy",
  });
  assert.deepEqual(deploySourceOf("https://jsr.io/@org/deploy/0.1.0/config.schema.json"), {
    kind: "package",
  });
});

Deno.test("siteDeployTaskCommand() from a checkout whose path has a space and a quote runs under deno task", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "deploy-task-" });
  try {
    // A stand-in checkout: its deno.json and a main.ts that says what it may read.
    const root = join(tmp, "Jane Doe's src");
    await Deno.mkdir(join(root, "deploy"), { recursive: true });
    await Deno.writeTextFile(join(root, "deno.json"), "{}\n");
    await Deno.writeTextFile(
      join(root, "deploy", "main.ts"),
      "const read = await Deno.permissions.query({ name: 'read', path: import.meta.dirname! });\n" +
        "console.log(JSON.stringify({ args: Deno.args, read: read.state }));\n",
    );
    const site = join(tmp, "site");
    await Deno.mkdir(site);
    const command = siteDeployTaskCommand({ kind: "checkout", root }, ["git", "kill"]);
    await Deno.writeTextFile(
      join(site, "deno.json"),
      JSON.stringify({ tasks: { deploy: command } }),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["task", "--quiet", "deploy", "status", "production"],
      cwd: site,
      env: { HOME: tmp, NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    assert.deepEqual(JSON.parse(new TextDecoder().decode(out.stdout)), {
      args: ["status", "production"],
      read: "granted",
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("taskShellWord() leaves plain words alone and quotes the rest for deno task", () => {
  assert.equal(taskShellWord("/src/deploy-2/x_y@1.0"), "/src/deploy-2/x_y@1.0");
  assert.equal(taskShellWord("/a b"), "'/a b'");
  assert.equal(taskShellWord("/it's"), `'/it'"'"'s'`);
  assert.equal(taskShellWord("/$HOME;rm"), "'/$HOME;rm'");
});

Deno.test("the launcher reports a package it cannot load in one line naming it and the checkout way", async () => {
  const site = await Deno.makeTempDir({ prefix: "deploy-launcher-" });
  try {
    await Deno.mkdir(join(site, ".deploy"));
    await Deno.writeTextFile(join(site, SITE_LAUNCHER), launcherSource());
    await Deno.writeTextFile(join(site, "deno.json"), "{}\n");
    // A closed loopback port stands in for the unreachable registry: nothing leaves the machine.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = listener.addr.port;
    listener.close();
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        ...deployTaskFlags(["git", "kill"]).map((f) => f.replaceAll("$HOME", site)),
        `./${SITE_LAUNCHER}`,
        "init",
      ],
      cwd: site,
      env: { JSR_URL: `http://127.0.0.1:${port}/`, RUST_BACKTRACE: "1", NO_COLOR: "1" },
      stdin: "null",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 1, stderr);
    assert.equal(stderr.trimEnd().split("\n").length, 1, stderr);
    assert.match(stderr, /^deploy: cannot load jsr:@org\/deploy \(/);
    assert.match(stderr, /run that checkout's deploy\/main\.ts init in this folder/);
    assert.doesNotMatch(stderr, /backtrace/i);
  } finally {
    await Deno.remove(site, { recursive: true });
  }
});

Deno.test("withDeployTask() adds the task beside the site's own, keeps an existing one, leaves JSONC alone", () => {
  const added = withDeployTask('{ "tasks": { "build": "astro build" }, "lock": true }', "X");
  assert.equal(added.action, "added");
  if (added.action === "added") {
    assert.deepEqual(JSON.parse(added.text), {
      tasks: { build: "astro build", deploy: "X" },
      lock: true,
    });
  }
  assert.deepEqual(withDeployTask('{ "tasks": { "deploy": "mine" } }', "X"), { action: "kept" });
  assert.equal(withDeployTask('{ // comment\n "tasks": {} }', "X").action, "unreadable");
  assert.equal(withDeployTask("[]", "X").action, "unreadable");
});

Deno.test("siteRunTools() names the repository's VCS, its one package manager, node for one that runs on it, and kill", () => {
  assert.deepEqual(siteRunTools("git", "npm"), ["git", "npm", "node", "kill"]);
  assert.deepEqual(siteRunTools("git", "bun"), ["git", "bun", "kill"]);
  assert.deepEqual(siteRunTools("jj", "deno"), ["jj", "deno", "kill"]);
  // No lockfile yet: any package manager, so the one added later still builds.
  assert.deepEqual(siteRunTools("git", undefined), [
    "git",
    "deno",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "node",
    "kill",
  ]);
  assert.match(
    siteDeployTaskCommand({ kind: "package" }, ["git", "npm", "kill"]),
    /--allow-run=git,npm,kill /,
  );
});
