/**
 * `pds keygen`, `pds secret status` and `pds secret delete` through the real CLI against each
 * AWS emulator: the client key goes into the emulator's Secrets Manager, tagged, status reads
 * it back, delete removes it.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  DescribeSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import { EMULATORS, ok, SITE, startPeerWorld } from "./peer_world.ts";

for (const name of EMULATORS) {
  Deno.test(`${name}: pds keygen stores the client key; pds secret status reads it; delete`, async (t) => {
    // Without AWS_ACCOUNT_ID: the CLI asks the emulator's STS for the account.
    await using world = await startPeerWorld(name, "pds", { stsLookup: true });
    await world.configure({
      ...SITE,
      domain: "blog.example",
      paths: { publicDir: "src" },
      pds: { name: "Test blog", handleResolver: "https://resolver.invalid" },
    });
    await world.steps(t, [
      ["bootstrap", async () => ok(await world.run(["bootstrap"]), "bootstrap")],
      ["pds keygen writes the client metadata and the tagged secret", async () => {
        ok(await world.run(["pds", "keygen"]), "pds keygen");
        const meta = JSON.parse(
          await Deno.readTextFile(join(world.root, "src/oauth/client-metadata.json")),
        );
        assert.equal(meta.client_id, "https://blog.example/oauth/client-metadata.json");
        const sm = world.client(SecretsManagerClient, "SECRETS_MANAGER");
        try {
          const described = await sm.send(new DescribeSecretCommand({ SecretId: "blog/atproto" }));
          assert.deepEqual(
            Object.fromEntries((described.Tags ?? []).map((t) => [t.Key, t.Value])),
            { app: "blog", environment: "production" },
          );
          const value = await sm.send(new GetSecretValueCommand({ SecretId: "blog/atproto" }));
          const key = JSON.parse(value.SecretString!).clientKey;
          assert.ok(key, "the secret holds the client key");
          const jwks = JSON.parse(await Deno.readTextFile(join(world.root, "src/oauth/jwks.json")));
          assert.equal(jwks.keys[0].kid, key.kid, "the published key is the stored one");
        } finally {
          sm.destroy();
        }
      }],
      ["pds secret status reads the key back", async () => {
        const r = await world.run(["pds", "secret", "status"]);
        ok(r, "pds secret status");
        assert.match(r.stdout, /client key +yes \(kid /);
      }],
      ["pds secret delete --yes deletes it", async () => {
        ok(await world.run(["pds", "secret", "delete", "--yes"]), "pds secret delete");
        const sm = world.client(SecretsManagerClient, "SECRETS_MANAGER");
        try {
          await assert.rejects(
            sm.send(new DescribeSecretCommand({ SecretId: "blog/atproto" })),
            { name: "ResourceNotFoundException" },
          );
        } finally {
          sm.destroy();
        }
      }],
    ]);
  });
}
