import assert from "node:assert/strict";
import {
  CloudFrontClient,
  CreateDistributionWithTagsCommand,
  CreateFunctionCommand,
  DeleteFunctionCommand,
  DescribeFunctionCommand,
  type DistributionConfig,
  GetDistributionCommand,
  GetDistributionConfigCommand,
  GetFunctionCommand,
  ListFunctionsCommand,
  ListTagsForResourceCommand,
  PublishFunctionCommand,
  UpdateDistributionCommand,
  UpdateFunctionCommand,
} from "@aws-sdk/client-cloudfront";
import { testAwsConfig } from "../support/s3.ts";
import { createTestOac, startCloudFrontFake } from "./cloudfront.ts";

const CODE_V1 = "function handler(event) { return event.request; }";
const CODE_V2 = "function handler(event) { var r = event.request; r.uri += 'x'; return r; }";
const bytes = (s: string) => new TextEncoder().encode(s);

function client(endpoint: string): CloudFrontClient {
  return new CloudFrontClient({ ...testAwsConfig, endpoint, maxAttempts: 1 });
}

function distributionConfig(oacId: string, functionArn?: string): DistributionConfig {
  return {
    CallerReference: "prod-site",
    Comment: "prod site",
    Enabled: true,
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
      CachePolicyId: "658327ea-f89d-4fab-a63d-7e88639e58f6",
      ...(functionArn
        ? {
          FunctionAssociations: {
            Quantity: 1,
            Items: [{ EventType: "viewer-request", FunctionARN: functionArn }],
          },
        }
        : {}),
    },
  };
}

Deno.test("cloudfront fake: a function is created, described, read, updated and published per stage", async () => {
  await using cf = startCloudFrontFake();
  const sdk = client(cf.endpoint);
  try {
    const created = await sdk.send(
      new CreateFunctionCommand({
        Name: "prod-site-rewrite",
        FunctionConfig: { Comment: "pretty URLs", Runtime: "cloudfront-js-2.0" },
        FunctionCode: bytes(CODE_V1),
        Tags: { Items: [{ Key: "app", Value: "site" }] },
      }),
    );
    const summary = created.FunctionSummary!;
    assert.equal(summary.Name, "prod-site-rewrite");
    assert.equal(summary.Status, "UNPUBLISHED");
    assert.equal(summary.FunctionConfig?.Runtime, "cloudfront-js-2.0");
    assert.equal(summary.FunctionConfig?.Comment, "pretty URLs");
    const arn = summary.FunctionMetadata?.FunctionARN;
    assert.equal(arn, "arn:aws:cloudfront::123456789012:function/prod-site-rewrite");
    assert.equal(summary.FunctionMetadata?.Stage, "DEVELOPMENT");
    assert.ok(summary.FunctionMetadata?.LastModifiedTime instanceof Date);
    assert.ok(created.ETag);
    assert.match(created.Location!, /\/2020-05-31\/function\/prod-site-rewrite$/);
    assert.equal(cf.state.functions.get("prod-site-rewrite")?.development.code, CODE_V1);
    const tags = await sdk.send(new ListTagsForResourceCommand({ Resource: arn }));
    assert.deepEqual(tags.Tags?.Items, [{ Key: "app", Value: "site" }]);

    await assert.rejects(
      sdk.send(new GetFunctionCommand({ Name: "prod-site-rewrite", Stage: "LIVE" })),
      { name: "NoSuchFunctionExists" },
    );
    const dev = await sdk.send(new GetFunctionCommand({ Name: "prod-site-rewrite" }));
    assert.equal(new TextDecoder().decode(dev.FunctionCode), CODE_V1);
    assert.equal(dev.ETag, created.ETag);

    await assert.rejects(
      sdk.send(new PublishFunctionCommand({ Name: "prod-site-rewrite", IfMatch: "stale" })),
      { name: "PreconditionFailed" },
    );
    const published = await sdk.send(
      new PublishFunctionCommand({ Name: "prod-site-rewrite", IfMatch: created.ETag }),
    );
    assert.equal(published.FunctionSummary?.FunctionMetadata?.Stage, "LIVE");
    assert.equal(published.FunctionSummary?.Status, "UNASSOCIATED");
    const live = await sdk.send(
      new DescribeFunctionCommand({ Name: "prod-site-rewrite", Stage: "LIVE" }),
    );
    assert.equal(live.FunctionSummary?.FunctionMetadata?.Stage, "LIVE");
    assert.ok(live.ETag);

    const updated = await sdk.send(
      new UpdateFunctionCommand({
        Name: "prod-site-rewrite",
        IfMatch: created.ETag,
        FunctionConfig: { Comment: "pretty URLs", Runtime: "cloudfront-js-2.0" },
        FunctionCode: bytes(CODE_V2),
      }),
    );
    assert.equal(updated.FunctionSummary?.Status, "UNPUBLISHED");
    assert.ok(updated.ETag && updated.ETag !== created.ETag, "the SDK reads the new ETag");
    // LIVE keeps the published code until the next publish.
    const stillLive = await sdk.send(
      new GetFunctionCommand({ Name: "prod-site-rewrite", Stage: "LIVE" }),
    );
    assert.equal(new TextDecoder().decode(stillLive.FunctionCode), CODE_V1);
    await sdk.send(
      new PublishFunctionCommand({ Name: "prod-site-rewrite", IfMatch: updated.ETag }),
    );
    assert.equal(cf.state.functions.get("prod-site-rewrite")?.live?.code, CODE_V2);

    await assert.rejects(
      sdk.send(
        new CreateFunctionCommand({
          Name: "prod-site-rewrite",
          FunctionConfig: { Comment: "", Runtime: "cloudfront-js-2.0" },
          FunctionCode: bytes(CODE_V1),
        }),
      ),
      { name: "FunctionAlreadyExists" },
    );
    await assert.rejects(
      sdk.send(new DescribeFunctionCommand({ Name: "nope", Stage: "DEVELOPMENT" })),
      { name: "NoSuchFunctionExists" },
    );
    await assert.rejects(
      sdk.send(new DescribeFunctionCommand({ Name: "prod-site-rewrite" })),
      { name: "InvalidArgument", message: /Stage/ },
      "DescribeFunction without a stage is refused, as CloudFront does",
    );
  } finally {
    sdk.destroy();
  }
});

Deno.test("cloudfront fake: functions are listed per stage with paging", async () => {
  await using cf = startCloudFrontFake();
  const sdk = client(cf.endpoint);
  try {
    for (const Name of ["a", "b", "c"]) {
      const out = await sdk.send(
        new CreateFunctionCommand({
          Name,
          FunctionConfig: { Comment: Name, Runtime: "cloudfront-js-2.0" },
          FunctionCode: bytes(CODE_V1),
        }),
      );
      if (Name === "b") await sdk.send(new PublishFunctionCommand({ Name, IfMatch: out.ETag }));
    }
    const page = await sdk.send(new ListFunctionsCommand({ MaxItems: 2 }));
    assert.deepEqual(page.FunctionList?.Items?.map((f) => f.Name), ["a", "b"]);
    assert.equal(page.FunctionList?.NextMarker, "c");
    const rest = await sdk.send(new ListFunctionsCommand({ Marker: "c" }));
    assert.deepEqual(rest.FunctionList?.Items?.map((f) => f.Name), ["c"]);
    assert.equal(rest.FunctionList?.NextMarker, undefined);
    const live = await sdk.send(new ListFunctionsCommand({ Stage: "LIVE" }));
    assert.deepEqual(live.FunctionList?.Items?.map((f) => f.Name), ["b"]);
  } finally {
    sdk.destroy();
  }
});

Deno.test("cloudfront fake: only published functions associate; an associated function cannot be deleted", async () => {
  await using cf = startCloudFrontFake({ deployAfterReads: 0 });
  const sdk = client(cf.endpoint);
  try {
    const oacId = await createTestOac(sdk);
    const fn = await sdk.send(
      new CreateFunctionCommand({
        Name: "prod-site-rewrite",
        FunctionConfig: { Comment: "", Runtime: "cloudfront-js-2.0" },
        FunctionCode: bytes(CODE_V1),
      }),
    );
    const arn = fn.FunctionSummary!.FunctionMetadata!.FunctionARN!;
    await assert.rejects(
      sdk.send(
        new CreateDistributionWithTagsCommand({
          DistributionConfigWithTags: {
            DistributionConfig: distributionConfig(oacId, arn),
            Tags: { Items: [] },
          },
        }),
      ),
      { name: "InvalidFunctionAssociation" },
    );
    await sdk.send(new PublishFunctionCommand({ Name: "prod-site-rewrite", IfMatch: fn.ETag }));
    const dist = await sdk.send(
      new CreateDistributionWithTagsCommand({
        DistributionConfigWithTags: {
          DistributionConfig: distributionConfig(oacId, arn),
          Tags: { Items: [] },
        },
      }),
    );
    const id = dist.Distribution!.Id!;
    assert.equal(
      cf.state.configText(
        id,
        "DefaultCacheBehavior/FunctionAssociations/Items/FunctionAssociation/FunctionARN",
      ),
      arn,
    );
    const live = await sdk.send(
      new DescribeFunctionCommand({ Name: "prod-site-rewrite", Stage: "LIVE" }),
    );
    assert.equal(live.FunctionSummary?.Status, "DEPLOYED");

    await assert.rejects(
      sdk.send(new DeleteFunctionCommand({ Name: "prod-site-rewrite", IfMatch: fn.ETag })),
      { name: "FunctionInUse" },
    );
    const current = await sdk.send(new GetDistributionConfigCommand({ Id: id }));
    await sdk.send(
      new UpdateDistributionCommand({
        Id: id,
        IfMatch: current.ETag,
        DistributionConfig: {
          ...current.DistributionConfig!,
          DefaultCacheBehavior: {
            ...current.DistributionConfig!.DefaultCacheBehavior!,
            FunctionAssociations: { Quantity: 0, Items: [] },
          },
        },
      }),
    );
    await assert.rejects(
      sdk.send(new DeleteFunctionCommand({ Name: "prod-site-rewrite" } as never)),
      { name: "InvalidIfMatchVersion" },
    );
    await sdk.send(new DeleteFunctionCommand({ Name: "prod-site-rewrite", IfMatch: fn.ETag }));
    assert.equal(cf.state.functions.size, 0);
    assert.equal(cf.state.tags.has(arn), false);
  } finally {
    sdk.destroy();
  }
});

Deno.test("cloudfront fake: publishing an associated function leaves its distribution InProgress until it deploys again; an unassociated one does not", async () => {
  await using cf = startCloudFrontFake({ deployAfterReads: 1 });
  const sdk = client(cf.endpoint);
  try {
    const oacId = await createTestOac(sdk);
    const create = (name: string) =>
      sdk.send(
        new CreateFunctionCommand({
          Name: name,
          FunctionConfig: { Comment: "", Runtime: "cloudfront-js-2.0" },
          FunctionCode: bytes(CODE_V1),
        }),
      );
    const fn = await create("prod-site-rewrite");
    const other = await create("other");
    await sdk.send(new PublishFunctionCommand({ Name: "prod-site-rewrite", IfMatch: fn.ETag }));
    const dist = await sdk.send(
      new CreateDistributionWithTagsCommand({
        DistributionConfigWithTags: {
          DistributionConfig: distributionConfig(
            oacId,
            fn.FunctionSummary!.FunctionMetadata!.FunctionARN!,
          ),
          Tags: { Items: [] },
        },
      }),
    );
    const id = dist.Distribution!.Id!;
    const status = async () =>
      (await sdk.send(new GetDistributionCommand({ Id: id }))).Distribution?.Status;
    assert.equal(await status(), "InProgress");
    assert.equal(await status(), "Deployed");

    await sdk.send(new PublishFunctionCommand({ Name: "other", IfMatch: other.ETag }));
    assert.equal(await status(), "Deployed");

    const updated = await sdk.send(
      new UpdateFunctionCommand({
        Name: "prod-site-rewrite",
        IfMatch: fn.ETag,
        FunctionConfig: { Comment: "", Runtime: "cloudfront-js-2.0" },
        FunctionCode: bytes(CODE_V2),
      }),
    );
    assert.equal(await status(), "Deployed", "a DEVELOPMENT change does not reach the edges");
    await sdk.send(
      new PublishFunctionCommand({ Name: "prod-site-rewrite", IfMatch: updated.ETag }),
    );
    assert.equal(await status(), "InProgress");
    assert.equal(await status(), "Deployed");
  } finally {
    sdk.destroy();
  }
});
