import assert from "node:assert/strict";
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  SecretsManagerClient,
  TagResourceCommand,
} from "@aws-sdk/client-secrets-manager";
import { testAwsConfig } from "../support/s3.ts";
import { startSecretsManagerFake } from "./secrets_manager.ts";

Deno.test("secrets manager fake: create binary, read by name and ARN, tag, conflict, delete", async () => {
  await using sm = startSecretsManagerFake();
  const client = new SecretsManagerClient({
    ...testAwsConfig,
    endpoint: sm.endpoint,
    maxAttempts: 1,
  });
  try {
    const bytes = new Uint8Array(32).fill(9);
    const created = await client.send(
      new CreateSecretCommand({
        Name: "blog/prod/analytics-salt",
        SecretBinary: bytes,
        Tags: [{ Key: "app", Value: "blog" }],
      }),
    );
    assert.match(created.ARN!, /^arn:aws:secretsmanager:us-east-1:123456789012:secret:blog\/prod/);
    await assert.rejects(
      client.send(new CreateSecretCommand({ Name: "blog/prod/analytics-salt", SecretString: "x" })),
      { name: "ResourceExistsException" },
    );
    const byName = await client.send(
      new GetSecretValueCommand({ SecretId: "blog/prod/analytics-salt" }),
    );
    assert.deepEqual(new Uint8Array(byName.SecretBinary!), bytes);
    const byArn = await client.send(new GetSecretValueCommand({ SecretId: created.ARN }));
    assert.deepEqual(new Uint8Array(byArn.SecretBinary!), bytes);
    await client.send(
      new TagResourceCommand({ SecretId: created.ARN, Tags: [{ Key: "environment", Value: "p" }] }),
    );
    const described = await client.send(new DescribeSecretCommand({ SecretId: created.ARN }));
    assert.deepEqual(described.Tags, [
      { Key: "app", Value: "blog" },
      { Key: "environment", Value: "p" },
    ]);
    await client.send(new DeleteSecretCommand({ SecretId: created.ARN }));
    await assert.rejects(
      client.send(new DescribeSecretCommand({ SecretId: "blog/prod/analytics-salt" })),
      { name: "ResourceNotFoundException" },
    );
  } finally {
    client.destroy();
  }
});
