import assert from "node:assert/strict";
import { decodeJwt } from "jose";
import { runTokenCli, spawnTokenServer } from "../support/token_server.ts";
import { waitFor } from "../support/wait.ts";

function internalUrlOf(stdout: string[]): Promise<string> {
  return waitFor(
    () => stdout.join("\n").match(/listening on (\S+) \(internal\)/)?.[1],
    "the internal listener's line",
  );
}

Deno.test("operator-token mints a JWT the running service accepts on the internal API", async () => {
  const dir = await Deno.makeTempDir({ prefix: "te-op-" });
  const toml = `[server]\nport = 0\nissuer = "https://auth.example"\n` +
    `[internal_api]\nenabled = true\nport = 0\nauth_methods = ["operator_token"]\n`;
  try {
    await using server = await spawnTokenServer({ dir, toml });
    const internal = await internalUrlOf(server.stdout);
    // The KV file is locked by the server: minting only reads the key ring.
    const out = await runTokenCli(dir, ["operator-token", "--sub", "alice", "--ttl", "10m"]);
    assert.equal(out.code, 0, out.stderr);
    // `TOKEN=$(… operator-token …)` captures stdout: the token alone, everything else on stderr.
    assert.match(out.stdout, /^[\w-]+\.[\w-]+\.[\w-]+\n$/);
    assert.match(out.stderr, /token-exchange: config token-exchange\.toml/);
    const token = out.stdout.trim();
    const claims = decodeJwt(token);
    assert.equal(claims.sub, "alice");
    assert.equal(claims.aud, "token-exchange-internal");
    assert.equal(claims.operator, true);
    assert.equal(claims.iss, "https://auth.example");
    assert.equal(Number(claims.exp) - Number(claims.iat), 600);
    const ok = await fetch(`${internal}/internal/stats`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(ok.status, 200, await ok.clone().text());
    assert.deepEqual((await ok.json()).sessions, { live: 0 });
    // Change a signature character that carries 6 full bits (the last one carries only 2, so
    // rewriting the tail could leave the signature bytes unchanged).
    const i = token.length - 10;
    const forged = token.slice(0, i) + (token[i] === "A" ? "B" : "A") + token.slice(i + 1);
    const tampered = await fetch(`${internal}/internal/stats`, {
      headers: { authorization: `Bearer ${forged}` },
    });
    assert.equal(tampered.status, 401);
    await tampered.body?.cancel();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("operator-token refuses a missing --sub or a bad --ttl with exit code 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "te-op-" });
  try {
    const noSub = await runTokenCli(dir, ["operator-token"]);
    assert.equal(noSub.code, 1);
    assert.match(noSub.stderr, /needs --sub NAME/);
    const badTtl = await runTokenCli(dir, ["operator-token", "--sub", "a", "--ttl", "soon"]);
    assert.equal(badTtl.code, 1);
    assert.match(badTtl.stderr, /--ttl: "soon" is not a duration/);
    const noStore = await runTokenCli(dir, ["operator-token", "--sub", "a"]);
    assert.equal(noStore.code, 1);
    assert.match(noStore.stderr, /no store at .* yet; start the service once first/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("operator-token needs no provider's secret; serve names the one unset variable once", async () => {
  const dir = await Deno.makeTempDir({ prefix: "te-op-" });
  const toml = `[server]\nport = 0\n[internal_api]\nenabled = true\nport = 0\n` +
    `[providers.google]\nissuer = "https://accounts.google.com"\nclient_id = "x"\n` +
    'client_secret = "${TE_TEST_UNSET_SECRET}"\n';
  try {
    await Deno.writeTextFile(`${dir}/token-exchange.toml`, toml);
    const serve = await runTokenCli(dir, ["serve"]);
    assert.equal(serve.code, 1);
    assert.equal(serve.stderr.match(/client_secret/g)?.length, 1, serve.stderr);
    assert.match(serve.stderr, /environment variable TE_TEST_UNSET_SECRET is not set/);
    const pem = await runTokenCli(dir, ["keys", "generate"]);
    assert.equal(pem.code, 0, pem.stderr);
    await Deno.writeTextFile(`${dir}/signing.pem`, pem.stdout);
    await Deno.writeTextFile(
      `${dir}/token-exchange.toml`,
      `[keys]\nprivate_key_path = "./signing.pem"\n${toml}`,
    );
    const out = await runTokenCli(dir, ["operator-token", "--sub", "alice", "--ttl", "1h"]);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(decodeJwt(out.stdout.trim()).sub, "alice");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
