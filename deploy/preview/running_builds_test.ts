import assert from "node:assert/strict";
import {
  CreateMicrovmImageCommand,
  GetMicrovmImageCommand,
  LambdaMicrovmsClient,
  RunMicrovmCommand,
} from "@aws-sdk/client-lambda-microvms";
import { startMicrovmsFake } from "../../tests/fakes/microvms.ts";
import { testAwsConfig } from "../../tests/support/s3.ts";
import { terminateRunningBuilds } from "./running_builds.ts";

async function image(client: LambdaMicrovmsClient, name: string): Promise<void> {
  await client.send(
    new CreateMicrovmImageCommand({
      name,
      baseImageArn: "arn:aws:lambda:us-east-1:aws:microvm-image:al2023",
      buildRoleArn: "arn:aws:iam::123456789012:role/builder",
      codeArtifact: { uri: `s3://${name}/builder/agent.zip` },
      resources: [{ minimumMemoryInMiB: 2048 }],
    }),
  );
  await client.send(new GetMicrovmImageCommand({ imageIdentifier: name }));
}

Deno.test("terminateRunningBuilds() stops the live builds of one image and leaves other images' alone", async () => {
  await using vms = startMicrovmsFake({ imageReadyAfterReads: 0, runningAfterReads: 0 });
  const client = new LambdaMicrovmsClient({
    ...testAwsConfig,
    endpoint: vms.endpoint,
    maxAttempts: 1,
  });
  try {
    await image(client, "preview-blog-builder");
    await image(client, "production-blog-builder");
    const run = async (imageIdentifier: string, token: string) =>
      (await client.send(
        new RunMicrovmCommand({
          imageIdentifier,
          maximumDurationInSeconds: 600,
          clientToken: token,
        }),
      )).microvmId!;
    const a = await run("preview-blog-builder", "a");
    const b = await run("preview-blog-builder", "b");
    const prod = await run("production-blog-builder", "p");
    vms.state.setState(b, "TERMINATED");

    assert.deepEqual(await terminateRunningBuilds(client, "preview-blog-builder"), [a]);
    assert.deepEqual(vms.callsOf("TerminateMicrovm").map((c) => c.input.microvmIdentifier), [a]);
    assert.equal(vms.state.microvms.get(prod)?.state, "RUNNING");
    assert.deepEqual(await terminateRunningBuilds(client, "preview-blog-builder"), []);
  } finally {
    client.destroy();
  }
});
