import assert from "node:assert/strict";
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { testAwsConfig } from "../support/s3.ts";
import { startStsFake } from "./sts.ts";

Deno.test("sts fake: GetCallerIdentity reports the configured account through the real SDK", async () => {
  await using sts = startStsFake({ accountId: "111122223333" });
  const client = new STSClient({ ...testAwsConfig, endpoint: sts.endpoint });
  try {
    const who = await client.send(new GetCallerIdentityCommand({}));
    assert.equal(who.Account, "111122223333");
    assert.equal(who.Arn, "arn:aws:iam::111122223333:user/deployer");
    sts.state.accountId = "444455556666";
    assert.equal((await client.send(new GetCallerIdentityCommand({}))).Account, "444455556666");
    assert.deepEqual(sts.calls.map((c) => c.operation), ["GetCallerIdentity", "GetCallerIdentity"]);
  } finally {
    client.destroy();
  }
});

Deno.test("sts fake: an injected ExpiredToken surfaces with its code, then calls succeed again", async () => {
  await using sts = startStsFake();
  const client = new STSClient({ ...testAwsConfig, endpoint: sts.endpoint, maxAttempts: 1 });
  try {
    sts.fail("GetCallerIdentity", { code: "ExpiredToken", status: 400, message: "expired" });
    await assert.rejects(client.send(new GetCallerIdentityCommand({})), {
      name: "ExpiredToken",
      message: "expired",
    });
    assert.equal((await client.send(new GetCallerIdentityCommand({}))).Account, "123456789012");
  } finally {
    client.destroy();
  }
});
