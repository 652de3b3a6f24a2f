import assert from "node:assert/strict";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { startOidcProvider } from "../support/oidc.ts";
import { providerToml, runTokenCli, spawnTokenServer } from "../support/token_server.ts";

async function codeExchange(url: string): Promise<string> {
  const res = await fetch(`${url}/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      code: "c",
      provider: "idp",
      redirect_uri: "https://app.example/cb",
    }),
  });
  const body = await res.json();
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.access_token;
}

Deno.test("serve under the deno task start permissions: exchange, lock, rotate, restart", async () => {
  await using idp = await startOidcProvider();
  const dir = await Deno.makeTempDir({ prefix: "te-proc-" });
  const toml = `[server]\nport = 0\nissuer = "https://auth.example"\n` +
    providerToml("idp", idp.issuer);
  try {
    const first = await spawnTokenServer({ dir, toml });
    let oldToken: string;
    try {
      assert.equal((await fetch(`${first.url}/health`)).status, 200);
      oldToken = await codeExchange(first.url);

      // A second process on the same KV file refuses with one line.
      const second = await runTokenCli(dir, ["serve"]);
      assert.equal(second.code, 1);
      assert.match(
        second.stderr.trim(),
        /^token-exchange: another token-exchange process is using/,
      );
      assert.equal(second.stderr.trim().split("\n").length, 1);
    } finally {
      const stopped = await first.stop("SIGTERM");
      assert.equal(stopped.code, 0, stopped.stderr);
    }

    const rotated = await runTokenCli(dir, ["keys", "rotate"]);
    assert.equal(rotated.code, 0, rotated.stderr);
    assert.match(rotated.stdout, /signing key is now \S+; \S+ stays published/);

    await using again = await spawnTokenServer({ dir, toml });
    const jwks = createRemoteJWKSet(new URL(`${again.url}/keys`));
    const { payload } = await jwtVerify(oldToken, jwks, { issuer: "https://auth.example" });
    assert.match(String(payload.sub), /^usr_/);
    const newToken = await codeExchange(again.url);
    assert.notEqual(decodeProtectedHeader(newToken).kid, decodeProtectedHeader(oldToken).kid);
    await jwtVerify(newToken, jwks);
    const keys = await (await fetch(`${again.url}/keys`)).json();
    assert.equal(keys.keys.length, 2);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("serve refuses a bad config, listing every issue, exit code 1", async () => {
  const dir = await Deno.makeTempDir({ prefix: "te-proc-" });
  try {
    await Deno.writeTextFile(
      `${dir}/token-exchange.toml`,
      `[server]\nprot = 1\n[token]\naccess_token_ttl = "soon"\n[internal_api]\nshared_secret = "\${NOPE}"\n`,
    );
    const out = await runTokenCli(dir, ["serve"]);
    assert.equal(out.code, 1);
    assert.match(out.stderr, /server\.prot: unknown key/);
    assert.match(out.stderr, /token\.access_token_ttl: "soon" is not a duration/);
    assert.match(out.stderr, /internal_api\.shared_secret: environment variable NOPE is not set/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("--help lists the subcommands", async () => {
  const out = await runTokenCli(Deno.cwd(), ["--help"]);
  assert.equal(out.code, 0);
  for (const c of ["serve", "keys generate", "keys rotate", "operator-token --sub NAME"]) {
    assert.ok(out.stdout.includes(c));
  }
});
