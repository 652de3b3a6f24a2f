import assert from "node:assert/strict";
import {
  CreateOpenIDConnectProviderCommand,
  CreateRoleCommand,
  DeleteOpenIDConnectProviderCommand,
  DeleteRoleCommand,
  DeleteRolePolicyCommand,
  GetOpenIDConnectProviderCommand,
  GetRoleCommand,
  GetRolePolicyCommand,
  IAMClient,
  ListOpenIDConnectProvidersCommand,
  ListRolePoliciesCommand,
  PutRolePolicyCommand,
  TagRoleCommand,
  UpdateAssumeRolePolicyCommand,
} from "@aws-sdk/client-iam";
import { testAwsConfig } from "../support/s3.ts";
import { startIamFake } from "./iam.ts";

const trust = JSON.stringify({
  Version: "2012-10-17",
  Statement: [{
    Effect: "Allow",
    Principal: { Federated: "x" },
    Action: "sts:AssumeRoleWithWebIdentity",
  }],
});

Deno.test("iam fake: OIDC provider create, get, list, delete and the missing-entity error", async () => {
  await using iam = startIamFake({ accountId: "111122223333" });
  const client = new IAMClient({ ...testAwsConfig, endpoint: iam.endpoint, maxAttempts: 1 });
  try {
    const created = await client.send(
      new CreateOpenIDConnectProviderCommand({
        Url: "https://token.actions.githubusercontent.com",
        ClientIDList: ["sts.amazonaws.com"],
        Tags: [{ Key: "app", Value: "site" }],
      }),
    );
    const arn = "arn:aws:iam::111122223333:oidc-provider/token.actions.githubusercontent.com";
    assert.equal(created.OpenIDConnectProviderArn, arn);
    const got = await client.send(
      new GetOpenIDConnectProviderCommand({ OpenIDConnectProviderArn: arn }),
    );
    assert.equal(got.Url, "token.actions.githubusercontent.com");
    assert.deepEqual(got.ClientIDList, ["sts.amazonaws.com"]);
    assert.deepEqual(got.Tags, [{ Key: "app", Value: "site" }]);
    assert.ok(got.CreateDate instanceof Date);
    const list = await client.send(new ListOpenIDConnectProvidersCommand({}));
    assert.deepEqual(list.OpenIDConnectProviderList, [{ Arn: arn }]);
    await assert.rejects(
      client.send(
        new CreateOpenIDConnectProviderCommand({
          Url: "https://token.actions.githubusercontent.com",
          ClientIDList: ["sts.amazonaws.com"],
        }),
      ),
      { name: "EntityAlreadyExistsException" },
    );
    await client.send(new DeleteOpenIDConnectProviderCommand({ OpenIDConnectProviderArn: arn }));
    await assert.rejects(
      client.send(new GetOpenIDConnectProviderCommand({ OpenIDConnectProviderArn: arn })),
      { name: "NoSuchEntityException" },
    );
  } finally {
    client.destroy();
  }
});

Deno.test("iam fake: role lifecycle with inline policy, tags and trust update", async () => {
  await using iam = startIamFake();
  const client = new IAMClient({ ...testAwsConfig, endpoint: iam.endpoint, maxAttempts: 1 });
  try {
    await assert.rejects(client.send(new GetRoleCommand({ RoleName: "prod-site-gh" })), {
      name: "NoSuchEntityException",
    });
    const created = await client.send(
      new CreateRoleCommand({
        RoleName: "prod-site-gh",
        AssumeRolePolicyDocument: trust,
        Tags: [{ Key: "app", Value: "site" }],
      }),
    );
    assert.equal(created.Role?.Arn, "arn:aws:iam::123456789012:role/prod-site-gh");
    assert.match(created.Role?.RoleId ?? "", /^AROA/);
    await assert.rejects(
      client.send(
        new CreateRoleCommand({ RoleName: "prod-site-gh", AssumeRolePolicyDocument: trust }),
      ),
      { name: "EntityAlreadyExistsException" },
    );
    const policy = JSON.stringify({
      Version: "2012-10-17",
      Statement: [{ Effect: "Allow", Action: "s3:GetObject", Resource: "*" }],
    });
    await client.send(
      new PutRolePolicyCommand({
        RoleName: "prod-site-gh",
        PolicyName: "deploy",
        PolicyDocument: policy,
      }),
    );
    const got = await client.send(
      new GetRolePolicyCommand({ RoleName: "prod-site-gh", PolicyName: "deploy" }),
    );
    assert.equal(decodeURIComponent(got.PolicyDocument ?? ""), policy);
    assert.deepEqual(
      (await client.send(new ListRolePoliciesCommand({ RoleName: "prod-site-gh" }))).PolicyNames,
      ["deploy"],
    );
    await client.send(
      new TagRoleCommand({
        RoleName: "prod-site-gh",
        Tags: [{ Key: "environment", Value: "prod" }],
      }),
    );
    const newTrust = trust.replace("x", "y");
    await client.send(
      new UpdateAssumeRolePolicyCommand({ RoleName: "prod-site-gh", PolicyDocument: newTrust }),
    );
    const role = await client.send(new GetRoleCommand({ RoleName: "prod-site-gh" }));
    assert.equal(decodeURIComponent(role.Role?.AssumeRolePolicyDocument ?? ""), newTrust);
    assert.deepEqual(role.Role?.Tags, [{ Key: "app", Value: "site" }, {
      Key: "environment",
      Value: "prod",
    }]);
    await assert.rejects(client.send(new DeleteRoleCommand({ RoleName: "prod-site-gh" })), {
      name: "DeleteConflictException",
    });
    await client.send(
      new DeleteRolePolicyCommand({ RoleName: "prod-site-gh", PolicyName: "deploy" }),
    );
    await assert.rejects(
      client.send(new GetRolePolicyCommand({ RoleName: "prod-site-gh", PolicyName: "deploy" })),
      { name: "NoSuchEntityException" },
    );
    await client.send(new DeleteRoleCommand({ RoleName: "prod-site-gh" }));
    assert.equal(iam.state.roles.size, 0);
    assert.deepEqual(iam.callsOf("PutRolePolicy")[0]?.input.PolicyName, "deploy");
  } finally {
    client.destroy();
  }
});

Deno.test("iam fake: an injected AccessDenied surfaces with its code and message", async () => {
  await using iam = startIamFake();
  const client = new IAMClient({ ...testAwsConfig, endpoint: iam.endpoint, maxAttempts: 1 });
  try {
    iam.fail("CreateRole", {
      code: "AccessDenied",
      status: 403,
      message: "not authorized to perform: iam:CreateRole",
    });
    const err = await client.send(
      new CreateRoleCommand({ RoleName: "r", AssumeRolePolicyDocument: trust }),
    )
      .then(
        () => undefined,
        (e: unknown) =>
          e as { name: string; message: string; $metadata: { httpStatusCode: number } },
      );
    assert.equal(err?.name, "AccessDenied");
    assert.match(err?.message ?? "", /iam:CreateRole/);
    assert.equal(err?.$metadata.httpStatusCode, 403);
    assert.equal(iam.state.roles.size, 0);
  } finally {
    client.destroy();
  }
});
