import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import {
  CreateFunctionCommand,
  DeleteFunctionCommand,
  GetFunctionCommand,
  LambdaClient,
  ListTagsCommand,
  TagResourceCommand,
  UpdateFunctionCodeCommand,
  UpdateFunctionConfigurationCommand,
} from "@aws-sdk/client-lambda";
import { testAwsConfig } from "../support/s3.ts";
import { startLambdaFake } from "./lambda.ts";

const ROLE = "arn:aws:iam::123456789012:role/transform";

Deno.test("lambda fake: create, read, update code and configuration, tag, delete", async () => {
  let assumable = false;
  await using fake = startLambdaFake({ roleAssumable: () => assumable });
  const client = new LambdaClient({ ...testAwsConfig, endpoint: fake.endpoint, maxAttempts: 1 });
  try {
    const zip = new Uint8Array([80, 75, 5, 6, 1, 2, 3]);
    const create = new CreateFunctionCommand({
      FunctionName: "prod-blog-analytics-transform",
      Role: ROLE,
      Runtime: "nodejs22.x",
      Handler: "index.handler",
      Code: { ZipFile: zip },
      Environment: { Variables: { SALT_SECRET_ID: "arn:secret" } },
      Tags: { app: "blog" },
    });
    await assert.rejects(client.send(create), { name: "InvalidParameterValueException" });
    assumable = true;
    const made = await client.send(create);
    assert.equal(made.CodeSha256, createHash("sha256").update(zip).digest("base64"));
    await assert.rejects(client.send(create), { name: "ResourceConflictException" });
    const got = await client.send(
      new GetFunctionCommand({ FunctionName: "prod-blog-analytics-transform" }),
    );
    assert.equal(got.Configuration?.Role, ROLE);
    assert.deepEqual(got.Configuration?.Environment?.Variables, { SALT_SECRET_ID: "arn:secret" });
    assert.deepEqual(got.Tags, { app: "blog" });
    const updated = await client.send(
      new UpdateFunctionCodeCommand({
        FunctionName: made.FunctionArn,
        ZipFile: new Uint8Array([1]),
      }),
    );
    assert.notEqual(updated.CodeSha256, made.CodeSha256);
    const configured = await client.send(
      new UpdateFunctionConfigurationCommand({
        FunctionName: "prod-blog-analytics-transform",
        Timeout: 60,
      }),
    );
    assert.equal(configured.Timeout, 60);
    await client.send(new TagResourceCommand({ Resource: made.FunctionArn, Tags: { env: "p" } }));
    const tags = await client.send(new ListTagsCommand({ Resource: made.FunctionArn }));
    assert.deepEqual(tags.Tags, { app: "blog", env: "p" });
    await client.send(new DeleteFunctionCommand({ FunctionName: "prod-blog-analytics-transform" }));
    await assert.rejects(
      client.send(new GetFunctionCommand({ FunctionName: "prod-blog-analytics-transform" })),
      { name: "ResourceNotFoundException" },
    );
  } finally {
    client.destroy();
  }
});
