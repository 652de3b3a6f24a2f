import assert from "node:assert/strict";
import type { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import { DeployError } from "../errors.ts";
import { type DeployedWait, waitDistributionDeployed } from "./distribution_deployed.ts";

// Short pauses, but a bound no busy machine reaches before the fake says Deployed.
const QUICK: DeployedWait = { maxWaitSeconds: 60, minDelaySeconds: 0.01, maxDelaySeconds: 0.02 };

/** A CloudFront client whose `GetDistribution` answers each status in turn (the last repeats). */
function answering(...answers: (string | Error)[]): { cf: CloudFrontClient; calls: () => number } {
  let calls = 0;
  const cf = {
    send: () => {
      const answer = answers[Math.min(calls++, answers.length - 1)]!;
      return answer instanceof Error
        ? Promise.reject(answer)
        : Promise.resolve({ Distribution: { Id: "E1", Status: answer } });
    },
  } as unknown as CloudFrontClient;
  return { cf, calls: () => calls };
}

Deno.test("waitDistributionDeployed() polls through InProgress and returns once Deployed", async () => {
  const { cf, calls } = answering("InProgress", "InProgress", "Deployed");
  assert.equal(await waitDistributionDeployed(cf, "E1", QUICK), "deployed");
  assert.equal(calls(), 3);
});

Deno.test("waitDistributionDeployed() says timed out when the bound passes first", async () => {
  const { cf, calls } = answering("InProgress");
  // Two seconds of 10–20 ms pauses: a second poll however busy the machine.
  const wait = { maxWaitSeconds: 2, minDelaySeconds: 0.01, maxDelaySeconds: 0.02 };
  assert.equal(await waitDistributionDeployed(cf, "E1", wait), "timed out");
  assert.ok(calls() >= 2);
});

Deno.test("waitDistributionDeployed() ends at the first error instead of polling it as 'not yet'", async () => {
  const denied = Object.assign(new Error("User is not authorized"), {
    name: "AccessDenied",
    $metadata: { httpStatusCode: 403 },
  });
  const { cf, calls } = answering(denied, "Deployed");
  await assert.rejects(
    waitDistributionDeployed(cf, "E1", { ...QUICK, maxWaitSeconds: 600 }),
    (err: unknown) =>
      err instanceof DeployError && err.code === "aws_access_denied" &&
      err.message === "access denied: cloudfront:GetDistribution on distribution E1",
  );
  assert.equal(calls(), 1);
});

Deno.test("waitDistributionDeployed() stops on Ctrl-C as interrupted", async () => {
  const interrupt = new AbortController();
  const { cf } = answering("InProgress");
  const waiting = waitDistributionDeployed(
    cf,
    "E1",
    { ...QUICK, maxWaitSeconds: 600 },
    interrupt.signal,
  );
  interrupt.abort();
  await assert.rejects(
    waiting,
    (err: unknown) => err instanceof DeployError && err.code === "interrupted",
  );
});
