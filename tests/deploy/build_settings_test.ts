/**
 * End to end, `deploy --builder local` in-process after a real `bootstrap`: `build.env` and
 * `build.secrets` reach the build, the secret's value appears in no output, record or object,
 * and what is missing is named; the dependency cache across deploys and `--no-cache`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { CreateSecretCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { ACCOUNT, bucketTexts, type InfraWorld, startInfraWorld } from "./infra_world.ts";
import { git, writeSiteRepo } from "./site_repo.ts";

const BUCKET = `production-blog-${ACCOUNT}`;
const SECRET = "cms-tok-5f1e9a7c3b";
const CONFIG = {
  siteName: "blog",
  region: "eu-west-1",
  app: "blog",
  build: {
    env: { PUBLIC_API: "https://${API_HOST}/v1" },
    secrets: { CMS_TOKEN: "blog/cms" },
  },
};

/** A build that uses both and prints the secret, as a careless build script would. */
const BUILD_JS = `
const token = Deno.env.get("CMS_TOKEN") ?? "";
console.log("building with token " + token + " for " + Deno.env.get("PUBLIC_API"));
await Deno.mkdir("dist", { recursive: true });
await Deno.writeTextFile("dist/index.html", "<p>api " + Deno.env.get("PUBLIC_API") + ", token of " + token.length + "</p>");
`;

async function world(): Promise<InfraWorld & { home: string }> {
  const w = await startInfraWorld(CONFIG);
  await writeSiteRepo(w.root);
  await Deno.writeTextFile(join(w.root, "build.js"), BUILD_JS);
  await Deno.writeTextFile(
    join(w.root, "deno.json"),
    JSON.stringify({
      tasks: { build: "deno run --allow-read=. --allow-write=dist --allow-env build.js" },
    }),
  );
  await git(w.root, "commit", "-qam", "build with settings");
  const home = await Deno.makeTempDir({ prefix: "deploy-home-" });
  w.env.HOME = home;
  const boot = await w.run(["bootstrap"]);
  assert.equal(boot.code, 0, boot.stderr);
  const close = w[Symbol.asyncDispose].bind(w);
  return Object.assign(w, {
    home,
    [Symbol.asyncDispose]: async () => {
      await close();
      await Deno.remove(home, { recursive: true }).catch(() => {});
    },
  });
}

async function createSecret(w: InfraWorld, name: string, value: string): Promise<void> {
  const secrets = new SecretsManagerClient({
    region: "eu-west-1",
    endpoint: w.aws.secretsManager.endpoint,
    credentials: { accessKeyId: "FAKEACCESSKEY", secretAccessKey: "FAKESECRET" },
  });
  try {
    await secrets.send(new CreateSecretCommand({ Name: name, SecretString: value }));
  } finally {
    secrets.destroy();
  }
}

/** Every file under `dir`, as text. */
async function treeTexts(
  dir: string,
  out = new Map<string, string>(),
): Promise<Map<string, string>> {
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) await treeTexts(path, out);
    else if (e.isFile) out.set(path, new TextDecoder("latin1").decode(await Deno.readFile(path)));
  }
  return out;
}

Deno.test("build settings: build.env and build.secrets reach the build; the secret's value is in no output, record or object", async () => {
  await using w = await world();
  w.env.API_HOST = "api.example.com";
  await createSecret(w, "blog/cms", SECRET);
  const shown = await w.run(["deploy", "--builder", "local"]);
  assert.equal(shown.code, 0, shown.stderr);
  assert.match(shown.stdout, /building with token \*\*\* for https:\/\/api\.example\.com\/v1/);
  const json = await w.run(["deploy", "--builder", "local", "--refresh", "--json"]);
  assert.equal(json.code, 0, json.stderr);
  const stored = await bucketTexts(w, BUCKET);
  const page = stored.get("site/index.html");
  assert.equal(page, `<p>api https://api.example.com/v1, token of ${SECRET.length}</p>`);

  const places = new Map<string, string>([
    ["stdout", shown.stdout + json.stdout],
    ["stderr", shown.stderr + json.stderr],
    ...[...stored].map(([k, v]): [string, string] => [`s3://${k}`, v]),
    ...await treeTexts(w.root),
    ...await treeTexts(w.home),
  ]);
  assert.ok(places.size > 10, [...places.keys()].join(" "));
  assert.ok([...places.keys()].some((k) => k.includes("builds/")), "a build record was searched");
  assert.ok([...places.keys()].some((k) => k.includes("build/")), "the source zip was searched");
  const found = [...places].filter(([, text]) => text.includes(SECRET)).map(([where]) => where);
  assert.deepEqual(found, []);
});

Deno.test("build settings: an unset ${VAR} and a missing secret are named, and nothing is built", async () => {
  await using w = await world();
  const unset = await w.run(["deploy", "--builder", "local", "--json"]);
  assert.equal(unset.code, 1);
  const envError = JSON.parse(unset.stdout).error;
  assert.equal(envError.code, "build_env_missing");
  assert.match(envError.message, /\$\{API_HOST\}.*build\.env\.PUBLIC_API/);

  w.env.API_HOST = "api.example.com";
  const noSecret = await w.run(["deploy", "--builder", "local", "--json"]);
  assert.equal(noSecret.code, 1);
  const secretError = JSON.parse(noSecret.stdout).error;
  assert.equal(secretError.code, "build_secret_missing");
  assert.match(secretError.message, /secret blog\/cms \(for CMS_TOKEN\)/);
  assert.equal(
    [...(await bucketTexts(w, BUCKET)).keys()].some((k) => k.startsWith("site/")),
    false,
  );
});
