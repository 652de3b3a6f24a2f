/**
 * Pull-request previews through the real CLI against each AWS emulator: bootstrap (the
 * certificate validated through the emulator's Route 53 zone), deploy, list, destroy and
 * teardown, judged by the emulator's own answers.
 */
import assert from "node:assert/strict";
import { HeadBucketCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { CloudFrontClient, ListDistributionsCommand } from "@aws-sdk/client-cloudfront";
import {
  CreateHostedZoneCommand,
  ListResourceRecordSetsCommand,
  Route53Client,
} from "@aws-sdk/client-route-53";
import { ACMClient, ListCertificatesCommand } from "@aws-sdk/client-acm";
import { EMULATORS, ok, type PeerWorld, startPeerWorld } from "./peer_world.ts";

async function withClient<T extends { destroy(): void }, R>(
  client: T,
  fn: (c: T) => Promise<R>,
): Promise<R> {
  try {
    return await fn(client);
  } finally {
    client.destroy();
  }
}

const recordTypes = (world: PeerWorld, zoneId: string) =>
  withClient(world.client(Route53Client, "ROUTE_53"), async (r53) => {
    const out = await r53.send(new ListResourceRecordSetsCommand({ HostedZoneId: zoneId }));
    return (out.ResourceRecordSets ?? []).map((r) => `${r.Type} ${r.Name}`).sort();
  });

for (const name of EMULATORS) {
  Deno.test(`${name}: preview bootstrap, deploy, list, destroy, teardown`, async (t) => {
    await using world = await startPeerWorld(name, "preview");
    const bucket = `preview-blog-${world.emulator.accountId}`;
    const zone = await withClient(
      world.client(Route53Client, "ROUTE_53"),
      (r53) =>
        r53.send(new CreateHostedZoneCommand({ Name: "example.com", CallerReference: "peers" })),
    );
    const zoneId = zone.HostedZone!.Id!;

    await world.steps(t, [
      [
        "preview bootstrap validates the certificate in the zone and creates the stack",
        async () => {
          ok(await world.run(["preview", "bootstrap"]), "preview bootstrap");
          const certs = await withClient(
            world.client(ACMClient, "ACM"),
            (acm) => acm.send(new ListCertificatesCommand({})),
          );
          assert.deepEqual(
            (certs.CertificateSummaryList ?? []).map((c) => c.DomainName),
            ["*.preview.example.com"],
          );
          const records = await recordTypes(world, zoneId);
          assert.ok(records.some((r) => r.startsWith("CNAME _")), `validation CNAME: ${records}`);
          assert.ok(records.includes("A *.preview.example.com."), `alias record: ${records}`);
          const dists = await withClient(
            world.client(CloudFrontClient, "CLOUDFRONT"),
            (cf) => cf.send(new ListDistributionsCommand({})),
          );
          assert.equal(dists.DistributionList?.Items?.length, 1);
        },
      ],
      ["preview deploy pr-1 uploads under previews/pr-1/site/", async () => {
        const r = await world.run(["preview", "deploy", "pr-1", "--builder", "local", "--json"]);
        ok(r, "preview deploy");
        assert.equal(JSON.parse(r.stdout).url, "https://pr-1.preview.example.com");
        const keys = await withClient(
          world.client(S3Client, "S3"),
          (s3) =>
            s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: "previews/pr-1/site/" })),
        );
        assert.equal(keys.Contents?.length, 5, "4 site files and robots.txt");
      }],
      ["preview list names pr-1", async () => {
        const r = await world.run(["preview", "list", "--json"]);
        ok(r, "preview list");
        assert.deepEqual(JSON.parse(r.stdout).previews.map((p: { id: string }) => p.id), ["pr-1"]);
      }],
      ["preview destroy pr-1 removes its objects", async () => {
        ok(await world.run(["preview", "destroy", "pr-1"]), "preview destroy");
        const keys = await withClient(
          world.client(S3Client, "S3"),
          (s3) => s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: "previews/pr-1/" })),
        );
        assert.equal(keys.Contents?.length ?? 0, 0);
      }],
      ["preview teardown --yes removes the stack and its DNS records", async () => {
        ok(await world.run(["preview", "teardown", "--yes"]), "preview teardown");
        const exists = await withClient(
          world.client(S3Client, "S3"),
          (s3) => s3.send(new HeadBucketCommand({ Bucket: bucket })).then(() => true, () => false),
        );
        assert.equal(exists, false);
        const certs = await withClient(
          world.client(ACMClient, "ACM"),
          (acm) => acm.send(new ListCertificatesCommand({})),
        );
        assert.equal(certs.CertificateSummaryList?.length ?? 0, 0);
        assert.deepEqual(
          (await recordTypes(world, zoneId)).map((r) => r.split(" ")[0]),
          ["NS", "SOA"],
        );
      }],
    ]);
  });
}
