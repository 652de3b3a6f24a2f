import assert from "node:assert/strict";
import {
  CreateMicrovmAuthTokenCommand,
  CreateMicrovmImageCommand,
  DeleteMicrovmImageCommand,
  GetMicrovmCommand,
  GetMicrovmImageCommand,
  LambdaMicrovmsClient,
  ListManagedMicrovmImagesCommand,
  ListManagedMicrovmImageVersionsCommand,
  ListMicrovmsCommand,
  RunMicrovmCommand,
  TerminateMicrovmCommand,
  UpdateMicrovmImageCommand,
} from "@aws-sdk/client-lambda-microvms";
import { FixedClock } from "@org/shared";
import { testAwsConfig } from "../support/s3.ts";
import { startMicrovmsFake } from "./microvms.ts";
import { startLogsFake } from "./logs.ts";

const imageInput = {
  name: "prod-site-builder",
  baseImageArn: "arn:aws:lambda:us-east-1:aws:microvm-image:al2023",
  buildRoleArn: "arn:aws:iam::123456789012:role/builder",
  codeArtifact: { uri: "s3://prod-site-123456789012/builder/agent.zip" },
  resources: [{ minimumMemoryInMiB: 2048 }],
};

Deno.test("microvms fake: image create builds, update makes a new version", async () => {
  await using vms = startMicrovmsFake({ imageReadyAfterReads: 1 });
  const client = new LambdaMicrovmsClient({
    ...testAwsConfig,
    endpoint: vms.endpoint,
    maxAttempts: 1,
  });
  try {
    const created = await client.send(new CreateMicrovmImageCommand(imageInput));
    assert.equal(created.state, "CREATING");
    assert.equal(created.imageVersion, "1");
    assert.equal(
      created.imageArn,
      "arn:aws:lambda:us-east-1:123456789012:microvm-image:prod-site-builder",
    );
    assert.ok(created.createdAt instanceof Date);
    assert.deepEqual(created.resources, [{ minimumMemoryInMiB: 2048 }]);
    await assert.rejects(client.send(new CreateMicrovmImageCommand(imageInput)), {
      name: "ConflictException",
    });
    assert.equal(
      (await client.send(new GetMicrovmImageCommand({ imageIdentifier: "prod-site-builder" })))
        .state,
      "CREATING",
    );
    const ready = await client.send(
      new GetMicrovmImageCommand({ imageIdentifier: created.imageArn }),
    );
    assert.equal(ready.state, "CREATED");
    assert.equal(ready.latestActiveImageVersion, "1");
    const updated = await client.send(
      new UpdateMicrovmImageCommand({
        baseImageArn: imageInput.baseImageArn,
        buildRoleArn: imageInput.buildRoleArn,
        codeArtifact: imageInput.codeArtifact,
        imageIdentifier: "prod-site-builder",
        resources: [{ minimumMemoryInMiB: 4096 }],
      }),
    );
    assert.equal(updated.state, "UPDATING");
    assert.equal(updated.imageVersion, "2");
    vms.state.failImageBuild("prod-site-builder");
    const failed = await client.send(
      new GetMicrovmImageCommand({ imageIdentifier: "prod-site-builder" }),
    );
    assert.equal(failed.state, "UPDATE_FAILED");
    assert.equal(failed.latestFailedImageVersion, "2");
    assert.equal(failed.latestActiveImageVersion, "1");
    const err = await client.send(new GetMicrovmImageCommand({ imageIdentifier: "nope" })).catch((
      e,
    ) => e);
    assert.equal(err.name, "ResourceNotFoundException");
    assert.equal(err.resourceType, "MicrovmImage");
    assert.equal(err.$metadata.httpStatusCode, 404);
  } finally {
    client.destroy();
  }
});

Deno.test("microvms fake: run is idempotent by client token, simulates the guest, terminates", async () => {
  await using logs = startLogsFake();
  const payloads: string[] = [];
  await using vms = startMicrovmsFake({
    imageReadyAfterReads: 0,
    runningAfterReads: 1,
    onRun: ({ vm, payload, logging }) => {
      payloads.push(payload ?? "");
      logs.state.append(logging!.logGroup!, logging!.logStream ?? vm.id, [
        "installing",
        `build:done:${payload}`,
      ]);
    },
  });
  const client = new LambdaMicrovmsClient({
    ...testAwsConfig,
    endpoint: vms.endpoint,
    maxAttempts: 1,
  });
  try {
    await client.send(new CreateMicrovmImageCommand(imageInput));
    const input = {
      imageIdentifier: "prod-site-builder",
      clientToken: "build-01",
      maximumDurationInSeconds: 900,
      idlePolicy: {
        maxIdleDurationSeconds: 60,
        suspendedDurationSeconds: 300,
        autoResumeEnabled: true,
      },
      logging: { cloudWatch: { logGroup: "/site/prod/builder", logStream: "build-01" } },
      runHookPayload: "01",
    };
    const launched = await client.send(new RunMicrovmCommand(input));
    assert.equal(launched.state, "PENDING");
    assert.equal(launched.maximumDurationInSeconds, 900);
    assert.deepEqual(launched.idlePolicy, input.idlePolicy);
    assert.ok(launched.startedAt instanceof Date);
    const replay = await client.send(new RunMicrovmCommand(input));
    assert.equal(replay.microvmId, launched.microvmId);
    await assert.rejects(
      client.send(new RunMicrovmCommand({ ...input, maximumDurationInSeconds: 901 })),
      {
        name: "ConflictException",
      },
    );
    assert.equal(vms.state.microvms.size, 1);
    assert.deepEqual(vms.callsOf("RunMicrovm")[0]?.input.idlePolicy, input.idlePolicy);

    const id = launched.microvmId!;
    assert.equal(
      (await client.send(new GetMicrovmCommand({ microvmIdentifier: id }))).state,
      "PENDING",
    );
    assert.equal(
      (await client.send(new GetMicrovmCommand({ microvmIdentifier: id }))).state,
      "RUNNING",
    );
    await assert.rejects(client.send(new ListMicrovmsCommand({})), { name: "ValidationException" });
    const listed = await client.send(new ListMicrovmsCommand({ maxResults: 10 }));
    assert.deepEqual(listed.items?.map((v) => [v.microvmId, v.state]), [[id, "RUNNING"]]);
    const token = await client.send(
      new CreateMicrovmAuthTokenCommand({
        microvmIdentifier: id,
        expirationInMinutes: 5,
        allowedPorts: [{ port: 8080 }],
      }),
    );
    assert.match(token.authToken?.["X-aws-proxy-auth"] ?? "", /^fake-token\./);
    await client.send(new TerminateMicrovmCommand({ microvmIdentifier: id }));
    await client.send(new TerminateMicrovmCommand({ microvmIdentifier: id }));
    const gone = await client.send(new GetMicrovmCommand({ microvmIdentifier: id }));
    assert.equal(gone.state, "TERMINATED");
    assert.ok(gone.terminatedAt instanceof Date);
    await assert.rejects(client.send(new GetMicrovmCommand({ microvmIdentifier: "mvm-nope" })), {
      name: "ResourceNotFoundException",
    });
    await vms.close();
    assert.deepEqual(payloads, ["01"]);
    assert.deepEqual(logs.state.messages("/site/prod/builder", "build-01"), [
      "installing",
      "build:done:01",
    ]);
  } finally {
    client.destroy();
  }
});

Deno.test("microvms fake: a VM past its maximum duration reads as terminated", async () => {
  const clock = new FixedClock(1_700_000_000_000);
  await using vms = startMicrovmsFake({
    imageReadyAfterReads: 0,
    runningAfterReads: 0,
    now: () => clock.now(),
  });
  const client = new LambdaMicrovmsClient({
    ...testAwsConfig,
    endpoint: vms.endpoint,
    maxAttempts: 1,
  });
  try {
    await client.send(new CreateMicrovmImageCommand(imageInput));
    const { microvmId } = await client.send(
      new RunMicrovmCommand({ imageIdentifier: "prod-site-builder", maximumDurationInSeconds: 60 }),
    );
    clock.advance(59_000);
    assert.equal(
      (await client.send(new GetMicrovmCommand({ microvmIdentifier: microvmId }))).state,
      "RUNNING",
    );
    clock.advance(1_000);
    const late = await client.send(new GetMicrovmCommand({ microvmIdentifier: microvmId }));
    assert.equal(late.state, "TERMINATED");
    assert.equal(late.stateReason, "MaximumDurationExceeded");
    vms.fail("RunMicrovm", { code: "ServiceUnavailableException", status: 503, times: 2 });
    await assert.rejects(
      client.send(new RunMicrovmCommand({ imageIdentifier: "prod-site-builder" })),
      (e: Error & { $metadata: { httpStatusCode: number } }) => e.$metadata.httpStatusCode === 503,
    );
    await assert.rejects(
      client.send(new RunMicrovmCommand({ imageIdentifier: "prod-site-builder" })),
    );
    assert.ok(
      (await client.send(new RunMicrovmCommand({ imageIdentifier: "prod-site-builder" })))
        .microvmId,
    );
  } finally {
    client.destroy();
  }
});

Deno.test("microvms fake: managed base images list in pages, with their versions", async () => {
  await using vms = startMicrovmsFake({
    region: "eu-west-1",
    managedImages: ["al2023-1", "al2023-2", "ubuntu-24"],
  });
  const client = new LambdaMicrovmsClient({
    ...testAwsConfig,
    endpoint: vms.endpoint,
    maxAttempts: 1,
  });
  try {
    const first = await client.send(new ListManagedMicrovmImagesCommand({ maxResults: 2 }));
    assert.deepEqual(first.items?.map((i) => i.imageArn), [
      "arn:aws:lambda:eu-west-1:aws:microvm-image:al2023-1",
      "arn:aws:lambda:eu-west-1:aws:microvm-image:al2023-2",
    ]);
    assert.ok(first.items?.[0]?.createdAt instanceof Date);
    assert.ok(first.nextToken);
    const second = await client.send(
      new ListManagedMicrovmImagesCommand({ maxResults: 2, nextToken: first.nextToken }),
    );
    assert.deepEqual(second.items?.map((i) => i.imageArn), [
      "arn:aws:lambda:eu-west-1:aws:microvm-image:ubuntu-24",
    ]);
    assert.equal(second.nextToken, undefined);
    const versions = await client.send(
      new ListManagedMicrovmImageVersionsCommand({
        imageIdentifier: "arn:aws:lambda:eu-west-1:aws:microvm-image:al2023-2",
      }),
    );
    assert.deepEqual(versions.items?.map((v) => [v.imageVersion, v.status]), [["1", "AVAILABLE"]]);
    await assert.rejects(
      client.send(new ListManagedMicrovmImageVersionsCommand({ imageIdentifier: "debian-12" })),
      { name: "ResourceNotFoundException" },
    );
    assert.deepEqual(vms.calls.map((c) => c.operation), [
      "ListManagedMicrovmImages",
      "ListManagedMicrovmImages",
      "ListManagedMicrovmImageVersions",
      "ListManagedMicrovmImageVersions",
    ]);
  } finally {
    client.destroy();
  }
});

Deno.test("microvms fake: DeleteMicrovmImage removes the image; a second delete is not found", async () => {
  await using vms = startMicrovmsFake({ imageReadyAfterReads: 0 });
  const client = new LambdaMicrovmsClient({
    ...testAwsConfig,
    endpoint: vms.endpoint,
    maxAttempts: 1,
  });
  try {
    await client.send(new CreateMicrovmImageCommand(imageInput));
    await client.send(new DeleteMicrovmImageCommand({ imageIdentifier: imageInput.name }));
    assert.equal(vms.state.images.size, 0);
    await assert.rejects(
      client.send(new DeleteMicrovmImageCommand({ imageIdentifier: imageInput.name })),
      { name: "ResourceNotFoundException" },
    );
  } finally {
    client.destroy();
  }
});
