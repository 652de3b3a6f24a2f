import assert from "node:assert/strict";
import { LambdaMicrovmsClient } from "@aws-sdk/client-lambda-microvms";
import { FixedClock } from "@org/shared";
import { startMicrovmsFake } from "../../../tests/fakes/microvms.ts";
import { testAwsConfig } from "../../../tests/support/s3.ts";
import { createKeepAlive } from "./keep_alive.ts";

Deno.test("keep-alive: GET <endpoint>/healthz through the injected fetch with a token, renewed a minute before it expires", async () => {
  const clock = new FixedClock(Date.parse("2026-05-01T10:00:00.000Z"));
  await using vms = startMicrovmsFake({ imageReadyAfterReads: 0, now: () => clock.now() });
  const microvms = new LambdaMicrovmsClient({ ...testAwsConfig, endpoint: vms.endpoint });
  try {
    vms.state.microvms.set("mvm-1", {
      id: "mvm-1",
      state: "RUNNING",
      stateReason: undefined,
      imageArn: "arn:aws:lambda:us-east-1:123456789012:microvm-image:b",
      imageVersion: "1",
      endpoint: "https://mvm-1.microvm.lambda.us-east-1.on.aws",
      request: {},
      startedAt: new Date(clock.now()),
      terminatedAt: undefined,
      readsUntilRunning: 0,
    });
    const requests: { url: string; token: string | null }[] = [];
    const recordingFetch = (input: string | URL | Request, init?: RequestInit) => {
      requests.push({
        url: String(input),
        token: new Headers(init?.headers).get("x-aws-proxy-auth"),
      });
      return Promise.resolve(new Response("{}"));
    };
    const ping = createKeepAlive(microvms, clock, recordingFetch as typeof fetch);
    const target = {
      microvmId: "mvm-1",
      endpoint: "https://mvm-1.microvm.lambda.us-east-1.on.aws/",
    };

    await ping(target);
    clock.advance(13 * 60_000);
    await ping(target);
    clock.advance(60_000); // 14 minutes: the 15-minute token is renewed a minute early
    await ping(target);

    assert.deepEqual(requests.map((r) => r.url), [
      "https://mvm-1.microvm.lambda.us-east-1.on.aws/healthz",
      "https://mvm-1.microvm.lambda.us-east-1.on.aws/healthz",
      "https://mvm-1.microvm.lambda.us-east-1.on.aws/healthz",
    ]);
    const tokens = vms.callsOf("CreateMicrovmAuthToken");
    assert.equal(tokens.length, 2);
    assert.equal(tokens[0]!.input.expirationInMinutes, 15);
    assert.deepEqual(tokens[0]!.input.allowedPorts, [{ port: 8080 }]);
    assert.match(requests[0]!.token ?? "", /^fake-token\.mvm-1\./);
    assert.equal(requests[1]!.token, requests[0]!.token, "the token is reused while valid");
    assert.notEqual(requests[2]!.token, requests[0]!.token, "then a fresh one");
  } finally {
    microvms.destroy();
  }
});
