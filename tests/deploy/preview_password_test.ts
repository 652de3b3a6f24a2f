/**
 * End to end: `previews.password` puts HTTP Basic on every preview. `preview bootstrap` reads the
 * password (a `${VAR}`, or a Secrets Manager secret on the loopback fake), publishes a router
 * holding only its hash, and the previews are then requested through the edge (the live router
 * executed on cloudfront-js-2.0 events, the bucket behind it).
 */
import assert from "node:assert/strict";
import {
  CreateSecretCommand,
  PutSecretValueCommand,
  SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import { requestThroughEdge } from "../support/cloudfront_edge.ts";
import { writeSiteRepo } from "./site_repo.ts";
import { type InfraWorld, mutatingCalls, siteS3, startInfraWorld } from "./infra_world.ts";
import { basicToken } from "../../deploy/preview/auth.ts";

const PASSWORD = "7f3c-reviewers-only-91ab";
const CONFIG = {
  siteName: "blog",
  region: "eu-west-1",
  app: "blog",
  domain: "preview.example.com",
  githubRepo: "acme/blog",
};

async function privateWorld(password: string): Promise<InfraWorld> {
  const world = await startInfraWorld(
    { siteName: "blog", region: "eu-west-1", app: "blog" },
    { acmValidatesThroughRoute53: true },
  );
  await world.configure({ ...CONFIG, previews: { password } }, "preview");
  world.aws.route53.state.addZone("example.com");
  await writeSiteRepo(world.root);
  return world;
}

async function visit(world: InfraWorld, url: string, authorization?: string) {
  const s3 = siteS3(world);
  try {
    return await requestThroughEdge(
      world.aws.cloudfront.state,
      s3,
      url,
      authorization === undefined ? {} : { authorization },
    );
  } finally {
    s3.destroy();
  }
}

function routerCode(world: InfraWorld): string {
  return world.aws.cloudfront.state.functions.get("preview-blog-router")!.live!.code;
}

Deno.test("e2e preview password (${VAR}): every preview asks for Basic credentials; the router holds a hash, never the password", async () => {
  await using world = await privateWorld("${PREVIEW_PASSWORD}");
  world.env.PREVIEW_PASSWORD = PASSWORD;
  const boot = await world.run(["preview", "bootstrap"]);
  assert.equal(boot.code, 0, boot.stderr);
  const deployed = await world.run(["preview", "deploy", "pr-1", "--builder", "local"]);
  assert.equal(deployed.code, 0, deployed.stderr);
  const lines = deployed.stdout.trimEnd().split("\n");
  assert.equal(lines.at(-1), "https://pr-1.preview.example.com", "the URL is still the last line");
  assert.match(deployed.stdout, /access +HTTP Basic, user "preview"/);

  assert.equal((await visit(world, "https://pr-1.preview.example.com/")).status, 401);
  const wrong = await visit(world, "https://pr-1.preview.example.com/", `Basic ${basicToken("x")}`);
  assert.equal(wrong.status, 401);
  const right = await visit(
    world,
    "https://pr-1.preview.example.com/",
    `Basic ${basicToken(PASSWORD)}`,
  );
  assert.equal(right.status, 200);
  assert.equal(right.body, "<h1>home</h1>");

  const code = routerCode(world);
  assert.ok(!code.includes(PASSWORD) && !code.includes(basicToken(PASSWORD)));
  const status = await world.run(["status", "preview", "--json"]);
  assert.doesNotMatch(status.stdout, /code differs/, "status keeps the live check: no drift");
});

Deno.test("e2e preview password (secret): read from Secrets Manager; a rotated secret takes effect at the next bootstrap", async () => {
  await using world = await privateWorld("preview/blog/password");
  const secrets = new SecretsManagerClient({
    region: "eu-west-1",
    endpoint: world.aws.secretsManager.endpoint,
    credentials: { accessKeyId: "FAKEACCESSKEY", secretAccessKey: "FAKESECRET" },
  });
  try {
    await secrets.send(
      new CreateSecretCommand({ Name: "preview/blog/password", SecretString: PASSWORD }),
    );
    assert.equal((await world.run(["preview", "bootstrap"])).code, 0);
    assert.equal((await world.run(["preview", "deploy", "pr-2", "--builder", "local"])).code, 0);
    const url = "https://pr-2.preview.example.com/blog/";
    assert.equal((await visit(world, url, `Basic ${basicToken(PASSWORD)}`)).status, 200);

    await secrets.send(
      new PutSecretValueCommand({ SecretId: "preview/blog/password", SecretString: "rotated" }),
    );
    assert.equal((await world.run(["preview", "bootstrap"])).code, 0);
    assert.equal((await visit(world, url, `Basic ${basicToken(PASSWORD)}`)).status, 401);
    assert.equal((await visit(world, url, `Basic ${basicToken("rotated")}`)).status, 200);
  } finally {
    secrets.destroy();
  }
});

Deno.test("e2e preview password: an unset ${VAR} stops the bootstrap with preview_password_missing", async () => {
  await using world = await privateWorld("${PREVIEW_PASSWORD}");
  const r = await world.run(["preview", "bootstrap", "--json"]);
  assert.equal(r.code, 1);
  assert.equal(JSON.parse(r.stdout).error.code, "preview_password_missing");
});

Deno.test("e2e preview password: hostile values are a clear error naming the key, before anything is created", async (t) => {
  const cases: {
    name: string;
    password: unknown;
    env?: string;
    code: string;
    message: RegExp;
  }[] = [
    {
      name: "an empty variable",
      password: "${PW}",
      env: "",
      code: "preview_password_missing",
      message: /^previews\.password: the password in \$\{PW\} is empty$/,
    },
    {
      name: "a 10 KB variable",
      password: "${PW}",
      env: "x".repeat(10_240),
      code: "preview_password_invalid",
      message:
        /^previews\.password: the password in \$\{PW\} is 10240 characters, over the 256 allowed$/,
    },
    {
      name: "a control character",
      password: "${PW}",
      env: "ab\u0007cd",
      code: "preview_password_invalid",
      message:
        /^previews\.password: the password in \$\{PW\} holds a control character \(U\+0007 at character 3\)$/,
    },
    {
      name: "a newline",
      password: "${PW}",
      env: "abc\r\n",
      code: "preview_password_invalid",
      message: /U\+000D at character 4/,
    },
    {
      name: "a missing variable",
      password: "${PW}",
      code: "preview_password_missing",
      message: /^previews\.password names \$\{PW\}, which is not set$/,
    },
    {
      name: "a missing secret",
      password: "preview/none",
      code: "preview_password_missing",
      message: /^previews\.password names secret preview\/none, which does not exist$/,
    },
    { name: "an empty key", password: "", code: "config_invalid", message: /previews\.password/ },
    {
      name: "a 10 KB key",
      password: "p".repeat(10_240),
      code: "config_invalid",
      message: /previews\.password/,
    },
    {
      name: "a key with control characters",
      password: "a\u0000b\nc",
      code: "config_invalid",
      message: /previews\.password/,
    },
    {
      name: "a key that is no string",
      password: 42,
      code: "config_invalid",
      message: /previews\.password/,
    },
  ];
  for (const c of cases) {
    await t.step(c.name, async () => {
      await using world = await privateWorld(c.password as string);
      if (c.env !== undefined) world.env.PW = c.env;
      const r = await world.run(["preview", "bootstrap", "--json"]);
      assert.equal(r.code, 1, r.stderr);
      const error = JSON.parse(r.stdout).error;
      assert.equal(error.code, c.code, JSON.stringify(error));
      const said = [
        error.message,
        ...(error.issues ?? []).map((i: { path: string; message: string }) =>
          `${i.path}: ${i.message}`
        ),
      ].join("\n");
      assert.match(said, c.message);
      // Never the value itself (it may be a password written into the config by mistake).
      if (typeof c.password === "string" && c.password.length > 20) {
        assert.ok(!r.stdout.includes(c.password.slice(0, 20)));
      }
      if (c.env !== undefined && c.env.length >= 3) {
        assert.ok(!r.stdout.includes(c.env.slice(0, 3)));
      }
      assert.deepEqual(mutatingCalls(world), [], "nothing was created");
    });
  }
});
