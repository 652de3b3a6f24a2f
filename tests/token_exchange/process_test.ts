import assert from "node:assert/strict";
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from "jose";
import { startOidcProvider } from "../support/oidc.ts";
import {
  codeSignIn,
  providerToml,
  runTokenCli,
  spawnTokenServer,
  testConfig,
} from "../support/token_server.ts";

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
      oldToken = (await codeSignIn(first.url)).access_token;

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
    const newToken = (await codeSignIn(again.url)).access_token;
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

Deno.test("--help: every command it lists exists and has its own help", async () => {
  const out = await runTokenCli(Deno.cwd(), ["--help"]);
  assert.equal(out.code, 0);
  const listed = out.stdout.split("Commands (none: serve):\n")[1]!.split("\n\n")[0]!
    .split("\n").map((line) => line.trim().split(/\s+(?=--|\[|[A-Z]+\b)|\s{2,}/)[0]!);
  assert.deepEqual(listed, [
    "serve",
    "keys generate",
    "keys rotate",
    "keys reseal",
    "operator-token",
    "users import",
    "users export",
  ]);
  for (const command of listed) {
    const help = await runTokenCli(Deno.cwd(), [...command.split(" "), "--help"]);
    assert.equal(help.code, 0, `${command}: ${help.stderr}`);
    assert.match(help.stdout, new RegExp(`^Usage: \\S.* ${command}`), command);
  }
});

Deno.test("--help lists the subcommands and a minimal working config", async () => {
  const out = await runTokenCli(Deno.cwd(), ["--help"]);
  assert.equal(out.code, 0);
  for (
    const c of [
      "serve",
      "keys generate",
      "keys rotate",
      "keys reseal",
      "operator-token --sub NAME",
      "users import FILE",
      "users export",
    ]
  ) {
    assert.ok(out.stdout.includes(c));
  }
  // The config shown is one the service accepts, and it names a provider.
  const toml = out.stdout.slice(out.stdout.indexOf("[providers."), out.stdout.indexOf("Every key"))
    .replace(/^ {2}/gm, "");
  const config = testConfig(toml, { GOOGLE_CLIENT_SECRET: "s" });
  assert.deepEqual(Object.keys(config.providers), ["google"]);
});

Deno.test("first run: no command serves, and says once how to add a provider", async () => {
  const dir = await Deno.makeTempDir({ prefix: "te-first-" });
  try {
    await using server = await spawnTokenServer({
      dir,
      command: [],
      env: { TOKEN_EXCHANGE__SERVER__PORT: "0" },
    });
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
    const { code } = await server.stop("SIGTERM");
    assert.equal(code, 0);
    const out = server.stdout.join("\n");
    assert.equal(out.split("no identity provider is configured").length - 1, 1, out);
    assert.match(out, /\[providers\.google\]/);
    assert.match(out, /docs\/configuration\.md#providers/);
    // From a checkout there is no `token-exchange` command: the hint names the one that runs,
    // and running it as printed shows the help.
    const hinted = /`deno run -A (\S*server\/main\.ts) (--help)` shows this again/.exec(out);
    assert.ok(hinted, out);
    const help = await runTokenCli(dir, [hinted[2]!]);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^Usage: deno run -A \S*server\/main\.ts \[command\]/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("first run: with a provider configured there is no hint", async () => {
  await using idp = await startOidcProvider();
  const dir = await Deno.makeTempDir({ prefix: "te-first-" });
  try {
    await using server = await spawnTokenServer({
      dir,
      command: [],
      args: ["--config", "token-exchange.toml"],
      toml: `[server]\nport = 0\n` + providerToml("idp", idp.issuer),
    });
    await server.stop("SIGTERM");
    assert.ok(!server.stdout.join("\n").includes("no identity provider"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

/** Every Ed25519 PKCS#8 DER starts with these bytes; in base64 this text. */
const PKCS8_ED25519_PREFIX = "MC4CAQAwBQYDK2VwBCIEI";

/** The KV file and its WAL, as text (binary bytes decoded leniently). */
async function kvFilesText(dir: string): Promise<string> {
  let text = "";
  for await (const e of Deno.readDir(`${dir}/data`)) {
    if (e.isFile) text += new TextDecoder().decode(await Deno.readFile(`${dir}/data/${e.name}`));
  }
  return text;
}

Deno.test("keys.encryption_key: sealed at rest, wrong secret refuses to start, reseal moves it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "te-proc-" });
  const toml = `[server]\nport = 0\n[keys]\nencryption_key = "\${TE_KEYS_SECRET}"\n`;
  const OLD = "old-secret-old-secret-old-secret-0123456";
  const NEW = "new-secret-new-secret-new-secret-0123456";
  try {
    const first = await spawnTokenServer({ dir, toml, env: { TE_KEYS_SECRET: OLD } });
    const kid = (await (await fetch(`${first.url}/keys`)).json()).keys[0].kid;
    assert.equal((await first.stop()).code, 0);
    assert.ok(!(await kvFilesText(dir)).includes(PKCS8_ED25519_PREFIX));

    const wrong = await runTokenCli(dir, ["serve"], { TE_KEYS_SECRET: NEW });
    assert.equal(wrong.code, 1);
    assert.match(
      wrong.stderr.trim(),
      /^token-exchange: keys\.encryption_key does not open the signing key "[^"]+" in the store: it was sealed under another secret/,
    );
    assert.equal(wrong.stderr.trim().split("\n").length, 1);

    const resealed = await runTokenCli(dir, ["keys", "reseal", "--new-secret-env", "TE_NEW"], {
      TE_KEYS_SECRET: OLD,
      TE_NEW: NEW,
    });
    assert.equal(resealed.code, 0, resealed.stderr);
    assert.match(resealed.stdout, /1 private key\(s\) sealed under \$TE_NEW/);
    assert.ok(!resealed.stdout.includes(NEW) && !resealed.stderr.includes(NEW));

    await using again = await spawnTokenServer({ dir, toml, env: { TE_KEYS_SECRET: NEW } });
    assert.equal((await (await fetch(`${again.url}/keys`)).json()).keys[0].kid, kid);
    const old = await runTokenCli(dir, ["serve"], { TE_KEYS_SECRET: OLD });
    assert.equal(old.code, 1);
    // The CLI opens the sealed key too: an operator token minted with it verifies.
    const minted = await runTokenCli(dir, ["operator-token", "--sub", "ops"], {
      TE_KEYS_SECRET: NEW,
    });
    assert.equal(minted.code, 0, minted.stderr);
    await jwtVerify(
      minted.stdout.trim().split("\n").at(-1)!,
      createRemoteJWKSet(new URL(`${again.url}/keys`)),
      {
        typ: "operator+jwt",
      },
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("without keys.encryption_key the key stays plain, start-up says so once, and sealing it later says to rotate", async () => {
  const dir = await Deno.makeTempDir({ prefix: "te-proc-" });
  try {
    const server = await spawnTokenServer({ dir, toml: `[server]\nport = 0\n` });
    assert.equal((await fetch(`${server.url}/keys`)).status, 200);
    const { code, stderr } = await server.stop();
    assert.equal(code, 0);
    const notices = [...server.stdout, ...stderr.split("\n")].filter((l) =>
      l.includes("unencrypted")
    );
    assert.equal(notices.length, 1, notices.join("\n"));
    assert.ok((await kvFilesText(dir)).includes(PKCS8_ED25519_PREFIX));

    // Sealing a key that was plain does not erase its earlier copies: reseal says to rotate.
    const sealed = await runTokenCli(dir, ["keys", "reseal", "--new-secret-env", "TE_NEW"], {
      TE_NEW: "new-secret-new-secret-new-secret-0123456",
    });
    assert.equal(sealed.code, 0, sealed.stderr);
    assert.match(sealed.stdout, /1 private key\(s\) sealed under \$TE_NEW/);
    assert.match(sealed.stdout, /unencrypted before.*write-ahead log.*run `keys rotate`/s);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
