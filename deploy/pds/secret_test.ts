import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import assert from "node:assert/strict";
import { startSecretsManagerFake } from "../../tests/fakes/secrets_manager.ts";
import { testAwsConfig } from "../../tests/support/s3.ts";
import { DeployError } from "../errors.ts";
import { generateClientKey } from "./client_key.ts";
import { parseSecret, secretsManagerStore } from "./secret.ts";

const TAGS = { app: "blog.example", environment: "production" };
const noSleep = () => Promise.resolve();

Deno.test("secret store: the first write creates the secret with the stack's tags", async () => {
  await using sm = startSecretsManagerFake();
  const client = new SecretsManagerClient({ ...testAwsConfig, endpoint: sm.endpoint });
  const store = secretsManagerStore(client, "blog/atproto", { tags: TAGS, sleep: noSleep });
  assert.equal(await store.read(), null);
  const key = await generateClientKey(new Date("2026-11-23T15:04:05.123Z"));
  await store.update((s) => ({ ...s, clientKey: key }));
  assert.deepEqual(sm.state.secrets.get("blog/atproto")?.tags, TAGS);
  assert.deepEqual(await store.read(), { clientKey: key });
  assert.equal(key.kid, "2026-11-23T15-04-05Z");
});

Deno.test("secret store: update is read-modify-write and keeps what it does not change", async () => {
  await using sm = startSecretsManagerFake();
  const client = new SecretsManagerClient({ ...testAwsConfig, endpoint: sm.endpoint });
  const store = secretsManagerStore(client, "blog/atproto", { tags: TAGS, sleep: noSleep });
  const key = await generateClientKey(new Date());
  await store.update(() => ({ clientKey: key }));
  await store.update((s) => ({ ...s, did: "did:plc:abc" }));
  assert.deepEqual(await store.read(), { clientKey: key, did: "did:plc:abc" });
  assert.equal(sm.callsOf("CreateSecret").length, 1);
  assert.equal(sm.callsOf("PutSecretValue").length, 1);
});

Deno.test("secret store: a throttled write is retried until it lands", async () => {
  await using sm = startSecretsManagerFake();
  const client = new SecretsManagerClient({
    ...testAwsConfig,
    endpoint: sm.endpoint,
    maxAttempts: 1,
  });
  const store = secretsManagerStore(client, "blog/atproto", { tags: TAGS, sleep: noSleep });
  await store.update(() => ({ did: "did:plc:one" }));
  sm.fail("PutSecretValue", { code: "InternalServiceError", status: 500, times: 2 });
  await store.update((s) => ({ ...s, did: "did:plc:two" }));
  assert.equal(sm.callsOf("PutSecretValue").length, 3);
  assert.deepEqual(await store.read(), { did: "did:plc:two" });
});

Deno.test("secret store: status names parts, never values; delete removes it", async () => {
  await using sm = startSecretsManagerFake();
  const client = new SecretsManagerClient({ ...testAwsConfig, endpoint: sm.endpoint });
  const store = secretsManagerStore(client, "blog/atproto", { tags: TAGS, sleep: noSleep });
  assert.equal(await store.status(), null);
  const key = await generateClientKey(new Date());
  await store.update(() => ({ clientKey: key, did: "did:plc:abc" }));
  const status = await store.status();
  assert.ok(status);
  assert.equal(status.arn, sm.state.secrets.get("blog/atproto")?.arn);
  assert.deepEqual({ ...status, arn: "", lastChanged: "" }, {
    name: "blog/atproto",
    arn: "",
    lastChanged: "",
    clientKey: true,
    kid: key.kid,
    did: "did:plc:abc",
    session: false,
  });
  assert.ok(!JSON.stringify(status).includes(key.d));
  assert.equal(await store.delete(), true);
  assert.equal(await store.delete(), false);
});

Deno.test("parseSecret() refuses a foreign value without quoting it", () => {
  for (const text of ["hunter2", "[1]", '{"clientKey":{"kty":"RSA"}}', '{"did":"nope"}']) {
    assert.throws(() => parseSecret("blog/atproto", text), (err) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "secret_invalid");
      assert.ok(!err.message.includes("hunter2"));
      return true;
    });
  }
});
