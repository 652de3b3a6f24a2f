import assert from "node:assert/strict";
import { join } from "node:path";
import { REPO_ROOT, spawnTokenServer } from "../tests/support/token_server.ts";
import { KEEP_NODE_MODULES } from "../tests/support/deno_child.ts";

// Docker cannot run here, so these tests hold the Dockerfile to what the project tests (the
// Deno version, the start task's permissions) and run its command and health check directly.

/** The Dockerfile's instructions, continuation lines joined, comments dropped. */
async function instructions(): Promise<{ op: string; rest: string }[]> {
  const text = await Deno.readTextFile(join(REPO_ROOT, "Dockerfile"));
  return text.replace(/\\\n/g, " ").split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => {
      const space = l.indexOf(" ");
      return { op: l.slice(0, space).toUpperCase(), rest: l.slice(space + 1).trim() };
    });
}

/** The JSON (exec-form) argument list of the first `op` instruction (after `prefix`). */
async function execForm(op: string, prefix = ""): Promise<string[]> {
  const found = (await instructions()).find((i) => i.op === op);
  assert.ok(found, `no ${op}`);
  const json = found.rest.slice(found.rest.indexOf("[", prefix.length));
  return JSON.parse(json);
}

Deno.test("Dockerfile: the official Deno image at the tested version, run by a non-root user", async () => {
  const ins = await instructions();
  const from = ins.filter((i) => i.op === "FROM");
  assert.deepEqual(from.map((i) => i.rest), [`denoland/deno:debian-${Deno.version.deno}`]);
  const users = ins.filter((i) => i.op === "USER").map((i) => i.rest);
  assert.deepEqual(users, ["deno"]);
  assert.ok(ins.some((i) => i.op === "VOLUME" && i.rest.includes("/app/data")));
  assert.ok(ins.some((i) => i.op === "RUN" && i.rest.includes("deno install --frozen")));
  assert.ok(ins.some((i) => i.op === "COPY" && i.rest.includes("deno.lock")));
});

Deno.test("Dockerfile: CMD runs serve with the start task's permissions (plus /run/secrets)", async () => {
  const cmd = await execForm("CMD");
  const root = JSON.parse(await Deno.readTextFile(join(REPO_ROOT, "deno.json")));
  const task = (root.tasks.start as string).split(/\s+/).slice(2);
  const expected = task.map((f) => f === "--allow-read=." ? "--allow-read=.,/run/secrets" : f);
  assert.deepEqual(cmd, ["run", "--cached-only", ...expected]);
});

Deno.test("Dockerfile: its command serves, and its health check passes, and fails on a 503", async () => {
  const cmd = await execForm("CMD");
  const healthcheck = await execForm("HEALTHCHECK", "--interval");
  assert.equal(healthcheck[0], "deno");
  // The health check on the port in TOKEN_EXCHANGE__SERVER__PORT, as in the image.
  const check = (port: number) =>
    new Deno.Command(Deno.execPath(), {
      args: healthcheck.slice(1),
      env: { TOKEN_EXCHANGE__SERVER__PORT: String(port) },
      stderr: "null",
    }).output().then((o) => o.code);
  // As in the image, but on loopback (tests never bind elsewhere), on a free port, and from
  // the repository.
  const env = {
    NO_COLOR: "1",
    TOKEN_EXCHANGE__SERVER__HOST: "127.0.0.1",
    TOKEN_EXCHANGE__SERVER__PORT: "0",
  };
  const args = cmd.map((a) => a === "server/main.ts" ? join(REPO_ROOT, a) : a);
  args.splice(1, 0, KEEP_NODE_MODULES, `--config=${join(REPO_ROOT, "deno.json")}`);
  const server = await spawnTokenServer({ env, program: { path: Deno.execPath(), args } });
  try {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(await check(Number(new URL(server.url).port)), 0);
    assert.ok((await Deno.stat(join(server.dir, "data", "token-exchange.kv"))).isFile);
  } finally {
    const { code, stderr } = await server.stop("SIGTERM");
    assert.equal(code, 0, stderr);
    await Deno.remove(server.dir, { recursive: true });
  }
  // An unhealthy service (store down: 503) fails the check.
  const unhealthy = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => Response.json({ status: "unavailable" }, { status: 503 }),
  );
  try {
    assert.equal(await check(unhealthy.addr.port), 1);
  } finally {
    await unhealthy.shutdown();
  }
});
