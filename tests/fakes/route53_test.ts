import assert from "node:assert/strict";
import {
  type Change,
  ChangeResourceRecordSetsCommand,
  GetChangeCommand,
  ListHostedZonesByNameCommand,
  ListResourceRecordSetsCommand,
  Route53Client,
} from "@aws-sdk/client-route-53";
import { testAwsConfig } from "../support/s3.ts";
import { CLOUDFRONT_HOSTED_ZONE_ID, startRoute53Fake } from "./route53.ts";

function client(endpoint: string): Route53Client {
  return new Route53Client({ ...testAwsConfig, endpoint, maxAttempts: 1 });
}

const alias = (name: string, type: "A" | "AAAA", target = "d111.cloudfront.net"): Change => ({
  Action: "UPSERT",
  ResourceRecordSet: {
    Name: name,
    Type: type,
    AliasTarget: {
      HostedZoneId: CLOUDFRONT_HOSTED_ZONE_ID,
      DNSName: target,
      EvaluateTargetHealth: false,
    },
  },
});

const cname = (action: Change["Action"], name: string, value: string, ttl = 300): Change => ({
  Action: action,
  ResourceRecordSet: { Name: name, Type: "CNAME", TTL: ttl, ResourceRecords: [{ Value: value }] },
});

/** A fake with the zone `example.com`, a client and a batch sender; disposing stops both. */
function zoneWorld() {
  const r53 = startRoute53Fake();
  const zone = r53.state.addZone("example.com");
  const sdk = client(r53.endpoint);
  return {
    r53,
    zone,
    sdk,
    send: sender(sdk, zone.id),
    async [Symbol.asyncDispose]() {
      sdk.destroy();
      await r53.close();
    },
  };
}

/** Sends one change batch to a zone. */
function sender(sdk: Route53Client, zoneId: string) {
  return (changes: Change[]) =>
    sdk.send(
      new ChangeResourceRecordSetsCommand({
        HostedZoneId: zoneId,
        ChangeBatch: { Changes: changes },
      }),
    );
}

Deno.test("route53 fake: ListHostedZonesByName lists zones in reversed-label order from a name", async () => {
  await using r53 = startRoute53Fake();
  const example = r53.state.addZone("example.com");
  const sub = r53.state.addZone("preview.example.com");
  r53.state.addZone("example.org");
  const inner = r53.state.addZone("example.com", { privateZone: true });
  const sdk = client(r53.endpoint);
  try {
    const all = await sdk.send(new ListHostedZonesByNameCommand({}));
    assert.deepEqual(all.HostedZones?.map((z) => z.Name), [
      "example.com.",
      "example.com.",
      "preview.example.com.",
      "example.org.",
    ]);
    assert.equal(all.HostedZones?.[0]?.Id, `/hostedzone/${example.id}`);
    assert.equal(all.HostedZones?.[1]?.Config?.PrivateZone, true);
    assert.equal(all.HostedZones?.[0]?.ResourceRecordSetCount, 2);
    assert.equal(all.IsTruncated, false);

    const from = await sdk.send(
      new ListHostedZonesByNameCommand({ DNSName: "preview.example.com", MaxItems: 1 }),
    );
    assert.deepEqual(from.HostedZones?.map((z) => z.Id), [`/hostedzone/${sub.id}`]);
    assert.equal(from.DNSName, "preview.example.com");
    assert.equal(from.IsTruncated, true);
    assert.equal(from.NextDNSName, "example.org.");

    const paged = await sdk.send(
      new ListHostedZonesByNameCommand({ DNSName: "example.com", MaxItems: 1 }),
    );
    assert.equal(paged.HostedZones?.[0]?.Id, `/hostedzone/${example.id}`);
    const next = await sdk.send(
      new ListHostedZonesByNameCommand({
        DNSName: paged.NextDNSName,
        HostedZoneId: paged.NextHostedZoneId,
        MaxItems: 1,
      }),
    );
    assert.equal(next.HostedZones?.[0]?.Id, `/hostedzone/${inner.id}`);
    assert.equal(r53.callsOf("ListHostedZonesByName").length, 4);
  } finally {
    sdk.destroy();
  }
});

Deno.test("route53 fake: UPSERT writes CNAME and alias records; the change goes PENDING then INSYNC", async () => {
  await using r53 = startRoute53Fake({ insyncAfterReads: 1 });
  const zone = r53.state.addZone("example.com");
  const sdk = client(r53.endpoint);
  try {
    const out = await sdk.send(
      new ChangeResourceRecordSetsCommand({
        // The SDK strips the `/hostedzone/` prefix ListHostedZonesByName answers with.
        HostedZoneId: `/hostedzone/${zone.id}`,
        ChangeBatch: {
          Comment: "preview stack",
          Changes: [
            cname("UPSERT", "_abc.preview.example.com.", "_def.acm-validations.aws."),
            alias("*.preview.example.com", "A"),
            alias("*.preview.example.com", "AAAA"),
          ],
        },
      }),
    );
    assert.equal(out.ChangeInfo?.Status, "PENDING");
    assert.match(out.ChangeInfo?.Id ?? "", /^\/change\/C/);
    assert.ok(out.ChangeInfo?.SubmittedAt instanceof Date);
    assert.equal(out.ChangeInfo?.Comment, "preview stack");
    const first = await sdk.send(new GetChangeCommand({ Id: out.ChangeInfo?.Id }));
    assert.equal(first.ChangeInfo?.Status, "PENDING");
    const second = await sdk.send(new GetChangeCommand({ Id: out.ChangeInfo?.Id }));
    assert.equal(second.ChangeInfo?.Status, "INSYNC");

    const listed = await sdk.send(new ListResourceRecordSetsCommand({ HostedZoneId: zone.id }));
    // Reversed-label order, then type; a wildcard comes back escaped, as Route 53 answers it.
    assert.deepEqual(listed.ResourceRecordSets?.map((r) => [r.Name, r.Type]), [
      ["example.com.", "NS"],
      ["example.com.", "SOA"],
      ["\\052.preview.example.com.", "A"],
      ["\\052.preview.example.com.", "AAAA"],
      ["_abc.preview.example.com.", "CNAME"],
    ]);
    const a = listed.ResourceRecordSets?.[2];
    assert.deepEqual(a?.AliasTarget, {
      HostedZoneId: CLOUDFRONT_HOSTED_ZONE_ID,
      DNSName: "d111.cloudfront.net.",
      EvaluateTargetHealth: false,
    });
    assert.equal(a?.TTL, undefined);
    const c = listed.ResourceRecordSets?.[4];
    assert.equal(c?.TTL, 300);
    assert.deepEqual(c?.ResourceRecords, [{ Value: "_def.acm-validations.aws." }]);

    // UPSERT again with another target replaces the set in place.
    await sdk.send(
      new ChangeResourceRecordSetsCommand({
        HostedZoneId: zone.id,
        ChangeBatch: { Changes: [alias("*.preview.example.com.", "A", "d222.cloudfront.net.")] },
      }),
    );
    const a2 = r53.state.recordsOf("example.com").filter((r) => r.type === "A");
    assert.equal(a2.length, 1);
    assert.equal(a2[0]?.alias?.dnsName, "d222.cloudfront.net.");
    assert.equal(a2[0]?.name, "*.preview.example.com.");
  } finally {
    sdk.destroy();
  }
});

Deno.test("route53 fake: an alias beside a CNAME is refused unless the same batch deletes the CNAME", async () => {
  await using w = zoneWorld();
  const { r53, send } = w;
  {
    await send([cname("CREATE", "*.preview.example.com", "old-host.example.net")]);
    await assert.rejects(send([alias("*.preview.example.com", "A")]), (err: Error) => {
      assert.equal(err.name, "InvalidChangeBatch");
      assert.match(
        err.message,
        /type CNAME .* conflicts with other records with the same DNS name/,
      );
      return true;
    });
    // The failed batch changed nothing.
    assert.deepEqual(
      r53.state.recordsOf("example.com").filter((r) => r.name.startsWith("*")).map((r) => r.type),
      ["CNAME"],
    );
    // DELETE must name the current values exactly.
    await assert.rejects(
      send([cname("DELETE", "*.preview.example.com", "old-host.example.net", 60)]),
      /values provided do not match the current values/,
    );
    await send([
      cname("DELETE", "\\052.preview.example.com.", "old-host.example.net"),
      alias("*.preview.example.com", "A"),
      alias("*.preview.example.com", "AAAA"),
    ]);
    assert.deepEqual(
      r53.state.recordsOf("example.com").filter((r) => r.name.startsWith("*")).map((r) => r.type),
      ["A", "AAAA"],
    );
    // A CNAME cannot be added back beside them either.
    await assert.rejects(
      send([cname("UPSERT", "*.preview.example.com", "x.example.net")]),
      /conflicts with other records/,
    );
  }
});

Deno.test("route53 fake: batch rules (CREATE twice, DELETE missing, outside zone, apex CNAME, alias or values) fail with every message", async () => {
  await using w = zoneWorld();
  const { r53, zone, sdk, send } = w;
  {
    await send([cname("CREATE", "www.example.com", "a.example.net")]);
    await assert.rejects(
      send([
        cname("CREATE", "www.example.com", "a.example.net"),
        cname("DELETE", "gone.example.com", "a.example.net"),
        cname("UPSERT", "www.example.org", "a.example.net"),
        cname("UPSERT", "example.com", "a.example.net"),
      ]),
      (err: Error) => {
        assert.equal(err.name, "InvalidChangeBatch");
        assert.match(
          err.message,
          /^\[Tried to create resource record set \[name='www\.example\.com\.', type='CNAME'\] but it already exists, /,
        );
        assert.match(
          err.message,
          /Tried to delete resource record set \[name='gone\.example\.com\.', type='CNAME'\] but it was not found/,
        );
        assert.match(
          err.message,
          /DNS name www\.example\.org\. is not permitted in zone example\.com\./,
        );
        assert.match(
          err.message,
          /type CNAME with DNS name example\.com\. is not permitted at apex/,
        );
        return true;
      },
    );
    await assert.rejects(
      send([{
        Action: "UPSERT",
        ResourceRecordSet: {
          Name: "x.example.com",
          Type: "A",
          TTL: 60,
          ResourceRecords: [{ Value: "192.0.2.1" }],
          AliasTarget: {
            HostedZoneId: CLOUDFRONT_HOSTED_ZONE_ID,
            DNSName: "d1.cloudfront.net",
            EvaluateTargetHealth: false,
          },
        },
      }]),
      (err: Error) => err.name === "InvalidInput" && /found more than one/.test(err.message),
    );
    await assert.rejects(
      send([{ Action: "UPSERT", ResourceRecordSet: { Name: "x.example.com", Type: "A" } }]),
      (err: Error) => err.name === "InvalidInput" && /found none/.test(err.message),
    );
    await assert.rejects(
      send([{
        Action: "UPSERT",
        ResourceRecordSet: {
          Name: "x.example.com",
          Type: "A",
          AliasTarget: {
            HostedZoneId: zone.id,
            DNSName: "d1.cloudfront.net",
            EvaluateTargetHealth: false,
          },
        },
      }]),
      /alias target name does not lie within the target zone/,
    );
    await assert.rejects(
      sdk.send(
        new ChangeResourceRecordSetsCommand({
          HostedZoneId: "ZNOPE",
          ChangeBatch: { Changes: [cname("UPSERT", "a.example.com", "b.example.net")] },
        }),
      ),
      { name: "NoSuchHostedZone" },
    );
    await assert.rejects(sdk.send(new GetChangeCommand({ Id: "CNOPE" })), { name: "NoSuchChange" });
    assert.deepEqual(
      r53.state.recordsOf("example.com").map((r) => `${r.name} ${r.type}`),
      ["example.com. NS", "example.com. SOA", "www.example.com. CNAME"],
    );
  }
});

Deno.test("route53 fake: ListResourceRecordSets starts at a name and type and pages", async () => {
  await using r53 = startRoute53Fake();
  const zone = r53.state.addZone("example.com");
  const sdk = client(r53.endpoint);
  try {
    await sdk.send(
      new ChangeResourceRecordSetsCommand({
        HostedZoneId: zone.id,
        ChangeBatch: {
          Changes: [
            alias("*.preview.example.com", "A"),
            alias("*.preview.example.com", "AAAA"),
            cname("CREATE", "www.example.com", "a.example.net"),
          ],
        },
      }),
    );
    const page = await sdk.send(
      new ListResourceRecordSetsCommand({
        HostedZoneId: zone.id,
        StartRecordName: "*.preview.example.com",
        StartRecordType: "AAAA",
        MaxItems: 1,
      }),
    );
    assert.deepEqual(page.ResourceRecordSets?.map((r) => [r.Name, r.Type]), [[
      "\\052.preview.example.com.",
      "AAAA",
    ]]);
    assert.equal(page.IsTruncated, true);
    assert.equal(page.NextRecordName, "www.example.com.");
    assert.equal(page.NextRecordType, "CNAME");
    await assert.rejects(
      sdk.send(new ListResourceRecordSetsCommand({ HostedZoneId: zone.id, StartRecordType: "A" })),
      { name: "InvalidInput" },
    );
    r53.fail("ListResourceRecordSets", { code: "Throttling", status: 400 });
    await assert.rejects(
      sdk.send(new ListResourceRecordSetsCommand({ HostedZoneId: zone.id })),
      (err: Error) => err.name === "Throttling" || /Throttling/.test(err.message),
    );
  } finally {
    sdk.destroy();
  }
});
