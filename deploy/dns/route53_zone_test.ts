import assert from "node:assert/strict";
import { Route53Client } from "@aws-sdk/client-route-53";
import { startRoute53Fake } from "../../tests/fakes/route53.ts";
import { testAwsConfig } from "../../tests/support/s3.ts";
import { DeployError } from "../errors.ts";
import { deleteChanges, manualRecords, route53Records, upsertChanges } from "./dns_records.ts";
import { applyChanges, findEnclosingZone, readRecordSets } from "./route53_zone.ts";

const noWait = { sleep: () => Promise.resolve(), clock: { now: () => 0 } };

const input = {
  domain: "preview.example.com",
  validation: [{ name: "_abc.preview.example.com.", value: "_def.acm-validations.aws." }],
  distributionDomain: "d111.cloudfront.net",
};

Deno.test("findEnclosingZone() finds the longest public zone above the domain through the real SDK", async () => {
  await using r53 = startRoute53Fake();
  const sdk = new Route53Client({ ...testAwsConfig, endpoint: r53.endpoint, maxAttempts: 1 });
  try {
    assert.equal(await findEnclosingZone(sdk, "preview.example.com"), undefined);
    r53.state.addZone("example.com", { privateZone: true });
    r53.state.addZone("badexample.com");
    assert.equal(await findEnclosingZone(sdk, "preview.example.com"), undefined);
    const parent = r53.state.addZone("example.com");
    assert.equal(
      (await findEnclosingZone(sdk, "preview.example.com"))?.id,
      `/hostedzone/${parent.id}`,
    );
    const own = r53.state.addZone("preview.example.com");
    const found = await findEnclosingZone(sdk, "Preview.Example.com");
    assert.deepEqual(found, {
      id: `/hostedzone/${own.id}`,
      name: "preview.example.com.",
      privateZone: false,
    });
    // One look-up per candidate name: preview.example.com., example.com., com.
    assert.deepEqual(
      r53.callsOf("ListHostedZonesByName").slice(-3).map((c) => c.input.dnsname),
      ["preview.example.com.", "example.com.", "com."],
    );
  } finally {
    sdk.destroy();
  }
});

Deno.test("applyChanges() writes the records, waits for INSYNC; a second pass sends nothing", async () => {
  await using r53 = startRoute53Fake({ insyncAfterReads: 2 });
  r53.state.addZone("example.com");
  const sdk = new Route53Client({ ...testAwsConfig, endpoint: r53.endpoint, maxAttempts: 1 });
  const slept: number[] = [];
  const wait = {
    sleep: (ms: number) => (slept.push(ms), Promise.resolve()),
    clock: { now: () => 0 },
  };
  try {
    const zone = (await findEnclosingZone(sdk, input.domain))!;
    const want = route53Records(input);
    const names = want.map((r) => r.name);
    assert.equal(
      await applyChanges(
        sdk,
        zone,
        upsertChanges(want, await readRecordSets(sdk, zone.id, names)),
        wait,
      ),
      true,
    );
    // Two reads answer PENDING, the third INSYNC; one pause before each read.
    assert.equal(r53.callsOf("GetChange").length, 3);
    assert.deepEqual(slept, [5_000, 5_000, 5_000]);
    const live = await readRecordSets(sdk, zone.id, names);
    assert.deepEqual(live.map((r) => `${r.Name} ${r.Type}`).sort(), [
      "\\052.preview.example.com. A",
      "\\052.preview.example.com. AAAA",
      "_abc.preview.example.com. CNAME",
    ]);
    const before = r53.callsOf("ChangeResourceRecordSets").length;
    assert.equal(await applyChanges(sdk, zone, upsertChanges(want, live), wait), false);
    assert.equal(r53.callsOf("ChangeResourceRecordSets").length, before);

    // Teardown removes exactly what was written and leaves the zone's own records.
    await applyChanges(sdk, zone, deleteChanges(want, live), noWait);
    assert.deepEqual(r53.state.recordsOf("example.com").map((r) => r.type), ["NS", "SOA"]);
  } finally {
    sdk.destroy();
  }
});

Deno.test("applyChanges() replaces a hand-made wildcard CNAME with the aliases in one batch", async () => {
  await using r53 = startRoute53Fake({ insyncAfterReads: 0 });
  r53.state.addZone("example.com");
  const sdk = new Route53Client({ ...testAwsConfig, endpoint: r53.endpoint, maxAttempts: 1 });
  try {
    const zone = (await findEnclosingZone(sdk, input.domain))!;
    // What a user made from the printed records before moving DNS to Route 53.
    await applyChanges(sdk, zone, upsertChanges(manualRecords(input), []), noWait);
    const want = route53Records(input);
    const live = await readRecordSets(sdk, zone.id, want.map((r) => r.name));
    await applyChanges(sdk, zone, upsertChanges(want, live), noWait);
    assert.deepEqual(
      r53.state.recordsOf("example.com").filter((r) => r.name === "*.preview.example.com.")
        .map((r) => `${r.type} ${r.alias?.dnsName}`),
      ["A d111.cloudfront.net.", "AAAA d111.cloudfront.net."],
    );
    assert.equal(r53.callsOf("ChangeResourceRecordSets").length, 2);
  } finally {
    sdk.destroy();
  }
});

Deno.test("applyChanges() gives up with wait_timeout when the change never propagates", async () => {
  await using r53 = startRoute53Fake({ insyncAfterReads: Infinity });
  r53.state.addZone("example.com");
  const sdk = new Route53Client({ ...testAwsConfig, endpoint: r53.endpoint, maxAttempts: 1 });
  let now = 0;
  const wait = {
    sleep: (ms: number) => ((now += ms), Promise.resolve()),
    clock: { now: () => now },
    timeoutMs: 60_000,
    intervalMs: 10_000,
  };
  try {
    const zone = (await findEnclosingZone(sdk, input.domain))!;
    await assert.rejects(
      applyChanges(sdk, zone, upsertChanges(route53Records(input), []), wait),
      (err: unknown) => err instanceof DeployError && err.code === "wait_timeout",
    );
    assert.equal(r53.callsOf("GetChange").length, 6);
  } finally {
    sdk.destroy();
  }
});

Deno.test("applyChanges() reports Route 53's refusal with every problem it listed", async () => {
  await using r53 = startRoute53Fake({ insyncAfterReads: 0 });
  r53.state.addZone("example.com");
  const sdk = new Route53Client({ ...testAwsConfig, endpoint: r53.endpoint, maxAttempts: 1 });
  try {
    const zone = (await findEnclosingZone(sdk, input.domain))!;
    await assert.rejects(
      applyChanges(sdk, zone, [{
        Action: "DELETE",
        ResourceRecordSet: {
          Name: "gone.example.com",
          Type: "A",
          TTL: 60,
          ResourceRecords: [{ Value: "192.0.2.1" }],
        },
      }], noWait),
      (err: unknown) =>
        err instanceof DeployError && err.code === "aws_request_failed" &&
        /route53:ChangeResourceRecordSets/.test(err.message) &&
        /but it was not found/.test(err.message),
    );
  } finally {
    sdk.destroy();
  }
});
