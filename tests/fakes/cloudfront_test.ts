import assert from "node:assert/strict";
import {
  CloudFrontClient,
  CreateDistributionWithTagsCommand,
  CreateInvalidationCommand,
  DeleteDistributionCommand,
  DeleteOriginAccessControlCommand,
  type DistributionConfig,
  GetDistributionCommand,
  GetDistributionConfigCommand,
  GetInvalidationCommand,
  GetOriginAccessControlCommand,
  ListDistributionsCommand,
  ListInvalidationsCommand,
  ListOriginAccessControlsCommand,
  ListTagsForResourceCommand,
  TagResourceCommand,
  UpdateDistributionCommand,
} from "@aws-sdk/client-cloudfront";
import { testAwsConfig } from "../support/s3.ts";
import { createTestOac, startCloudFrontFake } from "./cloudfront.ts";

function siteConfig(oacId: string, extra: Partial<DistributionConfig> = {}): DistributionConfig {
  return {
    CallerReference: "prod-site",
    Comment: "prod site",
    Enabled: true,
    DefaultRootObject: "index.html",
    Origins: {
      Quantity: 1,
      Items: [{
        Id: "site",
        DomainName: "prod-site-123456789012.s3.eu-west-1.amazonaws.com",
        OriginPath: "/site",
        OriginAccessControlId: oacId,
        S3OriginConfig: { OriginAccessIdentity: "" },
      }],
    },
    DefaultCacheBehavior: {
      TargetOriginId: "site",
      ViewerProtocolPolicy: "redirect-to-https",
      Compress: true,
      CachePolicyId: "658327ea-f89d-4fab-a63d-7e88639e58f6",
    },
    CustomErrorResponses: {
      Quantity: 1,
      Items: [{ ErrorCode: 404, ResponseCode: "404", ResponsePagePath: "/404.html" }],
    },
    ...extra,
  };
}

Deno.test("cloudfront fake: distribution create, read, update, disable, delete with ETags", async () => {
  await using cf = startCloudFrontFake({ deployAfterReads: 1 });
  const client = new CloudFrontClient({ ...testAwsConfig, endpoint: cf.endpoint, maxAttempts: 1 });
  try {
    const oacId = await createTestOac(client);
    const created = await client.send(
      new CreateDistributionWithTagsCommand({
        DistributionConfigWithTags: {
          DistributionConfig: siteConfig(oacId),
          Tags: { Items: [{ Key: "app", Value: "site" }, { Key: "environment", Value: "prod" }] },
        },
      }),
    );
    const dist = created.Distribution!;
    assert.match(dist.Id!, /^EDFAKE\d+$/);
    assert.equal(dist.DomainName, `${dist.Id!.toLowerCase()}.cloudfront.net`);
    assert.equal(dist.Status, "InProgress");
    assert.ok(created.ETag);
    assert.match(created.Location!, new RegExp(`/2020-05-31/distribution/${dist.Id}$`));
    assert.equal(dist.DistributionConfig?.Origins?.Items?.[0]?.OriginAccessControlId, oacId);
    assert.equal(dist.DistributionConfig?.CustomErrorResponses?.Items?.[0]?.ErrorCode, 404);
    assert.ok(dist.LastModifiedTime instanceof Date);
    assert.equal(cf.state.configText(dist.Id!, "DefaultRootObject"), "index.html");

    const read = await client.send(new GetDistributionCommand({ Id: dist.Id }));
    assert.equal(read.Distribution?.Status, "InProgress");
    assert.equal(
      (await client.send(new GetDistributionCommand({ Id: dist.Id }))).Distribution?.Status,
      "Deployed",
    );

    const tags = await client.send(new ListTagsForResourceCommand({ Resource: dist.ARN }));
    assert.deepEqual(tags.Tags?.Items, [{ Key: "app", Value: "site" }, {
      Key: "environment",
      Value: "prod",
    }]);
    await client.send(
      new TagResourceCommand({
        Resource: dist.ARN,
        Tags: { Items: [{ Key: "owner", Value: "me" }] },
      }),
    );
    assert.equal(cf.state.tags.get(dist.ARN!)?.get("owner"), "me");

    const { DistributionConfig: config, ETag } = await client.send(
      new GetDistributionConfigCommand({ Id: dist.Id }),
    );
    assert.equal(ETag, created.ETag);
    assert.equal(config?.DefaultCacheBehavior?.ViewerProtocolPolicy, "redirect-to-https");

    await assert.rejects(
      client.send(
        new UpdateDistributionCommand({
          Id: dist.Id,
          IfMatch: "stale",
          DistributionConfig: config,
        }),
      ),
      { name: "PreconditionFailed" },
    );
    await assert.rejects(
      client.send(new DeleteDistributionCommand({ Id: dist.Id, IfMatch: ETag })),
      {
        name: "DistributionNotDisabled",
      },
    );
    const disabled = await client.send(
      new UpdateDistributionCommand({
        Id: dist.Id,
        IfMatch: ETag,
        DistributionConfig: { ...config!, Enabled: false },
      }),
    );
    assert.notEqual(disabled.ETag, ETag);
    assert.equal(disabled.Distribution?.Status, "InProgress");
    assert.equal(disabled.Distribution?.DistributionConfig?.Enabled, false);
    // Disabled but still deploying: CloudFront still refuses.
    await assert.rejects(
      client.send(new DeleteDistributionCommand({ Id: dist.Id, IfMatch: disabled.ETag })),
      {
        name: "DistributionNotDisabled",
      },
    );
    cf.state.deploy(dist.Id!);
    await assert.rejects(
      client.send(new DeleteOriginAccessControlCommand({ Id: oacId, IfMatch: "x" })),
      {
        name: "PreconditionFailed",
      },
    );
    const oacEtag = (await client.send(new GetOriginAccessControlCommand({ Id: oacId }))).ETag;
    await assert.rejects(
      client.send(new DeleteOriginAccessControlCommand({ Id: oacId, IfMatch: oacEtag })),
      {
        name: "OriginAccessControlInUse",
      },
    );
    await client.send(new DeleteDistributionCommand({ Id: dist.Id, IfMatch: disabled.ETag }));
    await assert.rejects(client.send(new GetDistributionCommand({ Id: dist.Id })), {
      name: "NoSuchDistribution",
    });
    await client.send(new DeleteOriginAccessControlCommand({ Id: oacId, IfMatch: oacEtag }));
    assert.equal(cf.state.originAccessControls.size, 0);
  } finally {
    client.destroy();
  }
});

Deno.test("cloudfront fake: list distributions and OACs, duplicate and invalid inputs", async () => {
  await using cf = startCloudFrontFake({ deployAfterReads: 0 });
  const client = new CloudFrontClient({ ...testAwsConfig, endpoint: cf.endpoint, maxAttempts: 1 });
  try {
    assert.deepEqual(
      (await client.send(new ListDistributionsCommand({}))).DistributionList?.Quantity,
      0,
    );
    const oacId = await createTestOac(client);
    await assert.rejects(createTestOac(client), { name: "OriginAccessControlAlreadyExists" });
    const oacs = await client.send(new ListOriginAccessControlsCommand({}));
    assert.deepEqual(oacs.OriginAccessControlList?.Items?.map((o) => [o.Id, o.Name]), [[
      oacId,
      "prod-site",
    ]]);

    const certArn = "arn:aws:acm:us-east-1:123456789012:certificate/abc";
    const withDomain = siteConfig(oacId, {
      Aliases: { Quantity: 1, Items: ["example.com"] },
      ViewerCertificate: {
        ACMCertificateArn: certArn,
        SSLSupportMethod: "sni-only",
        MinimumProtocolVersion: "TLSv1.2_2021",
      },
    });
    const created = await client.send(
      new CreateDistributionWithTagsCommand({
        DistributionConfigWithTags: { DistributionConfig: withDomain, Tags: { Items: [] } },
      }),
    );
    assert.equal(created.Distribution?.Status, "Deployed");
    await assert.rejects(
      client.send(
        new CreateDistributionWithTagsCommand({
          DistributionConfigWithTags: { DistributionConfig: withDomain, Tags: { Items: [] } },
        }),
      ),
      { name: "DistributionAlreadyExists" },
    );
    await assert.rejects(
      client.send(
        new CreateDistributionWithTagsCommand({
          DistributionConfigWithTags: {
            DistributionConfig: { ...withDomain, CallerReference: "other" },
            Tags: { Items: [] },
          },
        }),
      ),
      { name: "CNAMEAlreadyExists" },
    );
    await assert.rejects(
      client.send(
        new CreateDistributionWithTagsCommand({
          DistributionConfigWithTags: {
            DistributionConfig: {
              ...withDomain,
              CallerReference: "q",
              Aliases: { Quantity: 2, Items: ["a.example"] },
            },
            Tags: { Items: [] },
          },
        }),
      ),
      { name: "InvalidArgument" },
    );
    await assert.rejects(
      client.send(
        new CreateDistributionWithTagsCommand({
          DistributionConfigWithTags: {
            DistributionConfig: siteConfig("EOFAKE99999999", { CallerReference: "n" }),
            Tags: { Items: [] },
          },
        }),
      ),
      { name: "NoSuchOriginAccessControl" },
    );
    const list = await client.send(new ListDistributionsCommand({}));
    const summary = list.DistributionList?.Items?.[0];
    assert.equal(list.DistributionList?.Quantity, 1);
    assert.equal(summary?.Id, created.Distribution?.Id);
    assert.deepEqual(summary?.Aliases?.Items, ["example.com"]);
    assert.equal(summary?.ViewerCertificate?.ACMCertificateArn, certArn);
    assert.equal(summary?.Comment, "prod site");
  } finally {
    client.destroy();
  }
});

Deno.test("cloudfront fake: an unissued certificate is refused when the lookup says so", async () => {
  await using cf = startCloudFrontFake({ certificateStatus: () => "PENDING_VALIDATION" });
  const client = new CloudFrontClient({ ...testAwsConfig, endpoint: cf.endpoint, maxAttempts: 1 });
  try {
    const oacId = await createTestOac(client);
    await assert.rejects(
      client.send(
        new CreateDistributionWithTagsCommand({
          DistributionConfigWithTags: {
            DistributionConfig: siteConfig(oacId, {
              Aliases: { Quantity: 1, Items: ["example.com"] },
              ViewerCertificate: {
                ACMCertificateArn: "arn:aws:acm:us-east-1:1:certificate/x",
                SSLSupportMethod: "sni-only",
              },
            }),
            Tags: { Items: [] },
          },
        }),
      ),
      { name: "InvalidViewerCertificate" },
    );
  } finally {
    client.destroy();
  }
});

Deno.test("cloudfront fake: invalidations complete after a read and are listed newest first", async () => {
  await using cf = startCloudFrontFake({ deployAfterReads: 0 });
  const client = new CloudFrontClient({ ...testAwsConfig, endpoint: cf.endpoint, maxAttempts: 1 });
  try {
    const oacId = await createTestOac(client);
    const { Distribution: d } = await client.send(
      new CreateDistributionWithTagsCommand({
        DistributionConfigWithTags: { DistributionConfig: siteConfig(oacId), Tags: { Items: [] } },
      }),
    );
    const first = await client.send(
      new CreateInvalidationCommand({
        DistributionId: d!.Id,
        InvalidationBatch: {
          CallerReference: "b1",
          Paths: { Quantity: 2, Items: ["/index.html", "/a.css"] },
        },
      }),
    );
    assert.equal(first.Invalidation?.Status, "InProgress");
    assert.deepEqual(first.Invalidation?.InvalidationBatch?.Paths?.Items, [
      "/index.html",
      "/a.css",
    ]);
    assert.ok(first.Location?.endsWith(`/invalidation/${first.Invalidation?.Id}`));
    const second = await client.send(
      new CreateInvalidationCommand({
        DistributionId: d!.Id,
        InvalidationBatch: { CallerReference: "b2", Paths: { Quantity: 1, Items: ["/*"] } },
      }),
    );
    const got = await client.send(
      new GetInvalidationCommand({ DistributionId: d!.Id, Id: first.Invalidation?.Id }),
    );
    assert.equal(got.Invalidation?.Status, "InProgress");
    const again = await client.send(
      new GetInvalidationCommand({ DistributionId: d!.Id, Id: first.Invalidation?.Id }),
    );
    assert.equal(again.Invalidation?.Status, "Completed");
    const list = await client.send(new ListInvalidationsCommand({ DistributionId: d!.Id }));
    assert.deepEqual(list.InvalidationList?.Items?.map((i) => i.Id), [
      second.Invalidation?.Id,
      first.Invalidation?.Id,
    ]);
    assert.deepEqual(cf.state.invalidatedPaths(d!.Id!), ["/index.html", "/a.css", "/*"]);
    await assert.rejects(
      client.send(new GetInvalidationCommand({ DistributionId: d!.Id, Id: "INOPE" })),
      { name: "NoSuchInvalidation" },
    );
  } finally {
    client.destroy();
  }
});

Deno.test("cloudfront fake: injected 5xx fails once, then the call succeeds", async () => {
  await using cf = startCloudFrontFake();
  const client = new CloudFrontClient({ ...testAwsConfig, endpoint: cf.endpoint, maxAttempts: 1 });
  try {
    cf.fail("ListDistributions", { code: "ServiceUnavailable", status: 503 });
    await assert.rejects(
      client.send(new ListDistributionsCommand({})),
      (err: Error & { $metadata?: { httpStatusCode?: number } }) => {
        assert.equal(err.name, "ServiceUnavailable");
        assert.equal(err.$metadata?.httpStatusCode, 503);
        return true;
      },
    );
    assert.equal(
      (await client.send(new ListDistributionsCommand({}))).DistributionList?.Quantity,
      0,
    );
  } finally {
    client.destroy();
  }
});
