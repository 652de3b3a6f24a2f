/**
 * End to end: `bootstrap`, `status`, `delete` and `destroy` run in-process against s3rver (with
 * the bucket-configuration proxy) and the loopback CloudFront, ACM, IAM, Logs and STS fakes,
 * through the real AWS SDK clients.
 */
import assert from "node:assert/strict";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { logRetentionDays } from "../../deploy/infra/nodes/log_group.ts";
import { rewriteFunctionCode } from "../../deploy/infra/nodes/rewrite_function.ts";
import { ACCOUNT, type InfraWorld, mutatingCalls, siteS3, startInfraWorld } from "./infra_world.ts";
import { requestThroughEdge } from "../support/cloudfront_edge.ts";

const BUCKET = `production-blog-${ACCOUNT}`;
const BASE = {
  siteName: "blog",
  region: "eu-west-1",
  app: "blog",
  githubRepo: "acme/blog",
  retention: { microvmDays: 30, cloudfrontDays: 100 },
};

function s3Client(world: InfraWorld): S3Client {
  return new S3Client({
    region: "eu-west-1",
    endpoint: world.s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
  });
}

async function readState(world: InfraWorld): Promise<Record<string, unknown> | null> {
  const s3 = s3Client(world);
  try {
    const out = await s3.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: "state/production.json" }),
    );
    return JSON.parse(await out.Body!.transformToString());
  } catch {
    return null;
  } finally {
    s3.destroy();
  }
}

Deno.test("bootstrap: a first run creates every node and records them; a second changes nothing", async () => {
  await using world = await startInfraWorld(BASE);
  const first = await world.run(["bootstrap"]);
  assert.equal(first.code, 0, first.stderr);
  for (
    const label of [
      `created   bucket ${BUCKET}`,
      "created   log group /aws/microvms/production-blog-builder (eu-west-1)",
      "created   log group /blog/production/cloudfront (us-east-1)",
      `created   origin access control ${BUCKET}`,
      "created   CloudFront function production-blog-rewrite",
      `created   distribution for ${BUCKET}`,
      "created   access-log delivery production-blog-cdn (us-east-1)",
      `created   bucket policy of ${BUCKET}`,
      "created   OIDC provider token.actions.githubusercontent.com",
      "created   role production-blog-gh",
    ]
  ) assert.ok(first.stdout.includes(label), `missing "${label}" in:\n${first.stdout}`);

  // The bucket: private, owner-enforced, tagged, readable only by the distribution.
  assert.ok(await world.s3.bucketExists(BUCKET));
  const cfg = world.s3.state.configs.get(BUCKET)!;
  assert.match(cfg.get("publicAccessBlock")!, /<BlockPublicPolicy>true<\/BlockPublicPolicy>/);
  assert.match(cfg.get("ownershipControls")!, /BucketOwnerEnforced/);
  assert.match(cfg.get("tagging")!, /<Key>app<\/Key><Value>blog<\/Value>/);
  assert.match(cfg.get("tagging")!, /<Key>environment<\/Key><Value>production<\/Value>/);
  // Parts of uploads a killed deploy never completed are removed after 7 days.
  assert.match(cfg.get("lifecycle")!, /<Status>Enabled<\/Status>/);
  assert.match(
    cfg.get("lifecycle")!,
    /<AbortIncompleteMultipartUpload><DaysAfterInitiation>7<\/DaysAfterInitiation>/,
  );
  const [dist] = [...world.aws.cloudfront.state.distributions.values()];
  assert.ok(dist);
  const policy = JSON.parse(cfg.get("policy")!);
  assert.equal(policy.Statement[0].Condition.StringEquals["AWS:SourceArn"], dist.arn);

  // The distribution: bucket's site/ prefix through the OAC, HTTPS, compressed, 404 page.
  const cf = world.aws.cloudfront.state;
  assert.equal(cf.originAccessControls.size, 1);
  const [oacId] = [...cf.originAccessControls.keys()];
  assert.equal(cf.configText(dist.id, "Origins/Items/Origin/OriginPath"), "/site");
  assert.equal(cf.configText(dist.id, "Origins/Items/Origin/OriginAccessControlId"), oacId);
  assert.equal(
    cf.configText(dist.id, "Origins/Items/Origin/DomainName"),
    `${BUCKET}.s3.eu-west-1.amazonaws.com`,
  );
  assert.equal(cf.configText(dist.id, "DefaultRootObject"), "index.html");
  assert.equal(
    cf.configText(dist.id, "DefaultCacheBehavior/ViewerProtocolPolicy"),
    "redirect-to-https",
  );
  assert.equal(cf.configText(dist.id, "DefaultCacheBehavior/Compress"), "true");
  assert.equal(
    cf.configText(dist.id, "CustomErrorResponses/Items/CustomErrorResponse/ResponsePagePath"),
    "/404.html",
  );
  assert.deepEqual(cf.configTexts(dist.id, "Aliases/Items"), []);
  assert.equal(cf.tags.get(dist.arn)?.get("environment"), "production");

  // Pretty URLs: the rewrite function, published, runs on the default behaviour's viewer requests.
  const fn = cf.functions.get("production-blog-rewrite");
  assert.ok(fn?.live, "published to LIVE");
  assert.equal(fn.live.code, rewriteFunctionCode("index.html"));
  assert.equal(fn.live.runtime, "cloudfront-js-2.0");
  assert.equal(
    cf.configText(
      dist.id,
      "DefaultCacheBehavior/FunctionAssociations/Items/FunctionAssociation/EventType",
    ),
    "viewer-request",
  );
  assert.equal(
    cf.configText(
      dist.id,
      "DefaultCacheBehavior/FunctionAssociations/Items/FunctionAssociation/FunctionARN",
    ),
    fn.arn,
  );
  assert.equal(cf.tags.get(fn.arn)?.get("app"), "blog");

  // Log groups with their retention, role scoped to the repo.
  const logs = world.aws.logs.state.groups;
  assert.equal(logs.get("/aws/microvms/production-blog-builder")?.retentionInDays, 30);
  assert.equal(logs.get("/blog/production/cloudfront")?.retentionInDays, logRetentionDays(100));
  assert.equal(logs.get("/blog/production/cloudfront")?.tags.get("app"), "blog");
  // The distribution's access logs are delivered into the CDN log group, as JSON.
  const logsState = world.aws.logs.state;
  const source = logsState.deliverySources.get("production-blog-cdn");
  assert.deepEqual(source?.resourceArns, [dist.arn]);
  assert.equal(source?.logType, "ACCESS_LOGS");
  assert.equal(source?.tags.environment, "production");
  const destination = logsState.deliveryDestinations.get("production-blog-cdn");
  assert.equal(
    destination?.destinationResourceArn,
    `arn:aws:logs:us-east-1:${ACCOUNT}:log-group:/blog/production/cloudfront`,
  );
  assert.equal(destination?.outputFormat, "json");
  const deliveries = [...logsState.deliveries.values()];
  assert.equal(deliveries.length, 1);
  assert.equal(deliveries[0]?.deliverySourceName, "production-blog-cdn");
  assert.equal(deliveries[0]?.deliveryDestinationArn, destination?.arn);
  assert.equal(deliveries[0]?.tags.app, "blog");
  const role = world.aws.iam.state.roles.get("production-blog-gh")!;
  assert.match(role.assumeRolePolicyDocument, /repo:acme\/blog:\*/);
  assert.match(role.inlinePolicies.get("deploy")!, new RegExp(dist.arn));
  assert.equal(role.tags.get("environment"), "production");

  // The state, in the bucket.
  const state = await readState(world);
  assert.equal(state?.distributionId, dist.id);
  assert.equal(state?.oacId, oacId);
  assert.equal(state?.roleArn, role.arn);
  assert.equal(state?.bucket, BUCKET);

  const before = mutatingCalls(world).length;
  const published = world.aws.cloudfront.callsOf("PublishFunction").length;
  const second = await world.run(["bootstrap"]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /No changes: every resource is up to date\./);
  assert.deepEqual(mutatingCalls(world).slice(before), []);
  assert.equal(world.aws.cloudfront.callsOf("PublishFunction").length, published);
  assert.equal((await readState(world))?.updatedAt, state?.updatedAt);
});

Deno.test("bootstrap: a failure midway leaves a state that a re-run completes without duplicates", async () => {
  await using world = await startInfraWorld(BASE);
  world.aws.cloudfront.fail("CreateDistributionWithTags", {
    code: "AccessDenied",
    status: 403,
    message: "User is not authorized to perform cloudfront:CreateDistributionWithTags",
  });
  const failed = await world.run(["bootstrap"]);
  assert.equal(failed.code, 1);
  assert.match(
    failed.stderr,
    new RegExp(
      `error: access denied: cloudfront:CreateDistributionWithTags on distribution for ${BUCKET}`,
    ),
  );
  assert.match(failed.stderr, /hint: grant cloudfront:CreateDistributionWithTags/);
  const partial = await readState(world);
  assert.ok(partial, "state written before the failure");
  assert.equal(typeof partial.oacId, "string");
  assert.equal(partial.distributionId, undefined);

  const again = await world.run(["bootstrap"]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /unchanged origin access control/);
  assert.match(again.stdout, /created +distribution/);
  assert.equal(world.aws.cloudfront.state.distributions.size, 1);
  assert.equal(world.aws.cloudfront.state.originAccessControls.size, 1);
  assert.equal(world.aws.cloudfront.callsOf("CreateOriginAccessControl").length, 1);
});

Deno.test("bootstrap: resources a run created but never recorded are adopted, not duplicated", async () => {
  await using world = await startInfraWorld(BASE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  // Lose the state, as if the run had crashed before writing it.
  const s3 = s3Client(world);
  await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: "state/production.json" }))
    .finally(() => s3.destroy());

  const rerun = await world.run(["bootstrap"]);
  assert.equal(rerun.code, 0, rerun.stderr);
  assert.match(rerun.stdout, /adopted +distribution/);
  assert.match(rerun.stdout, /adopted +role production-blog-gh/);
  assert.match(rerun.stdout, /adopted +access-log delivery production-blog-cdn/);
  assert.match(rerun.stdout, /adopted +key value store production-blog-rules/);
  assert.match(rerun.stdout, /No changes to AWS resources; 12 existing resource\(s\) adopted/);
  assert.equal(world.aws.logs.state.deliveries.size, 1);
  assert.equal(world.aws.cloudfront.state.distributions.size, 1);
  assert.equal(world.aws.cloudfront.state.originAccessControls.size, 1);
  assert.equal(typeof (await readState(world))?.distributionId, "string");
});

const FN = "production-blog-rewrite";
const ASSOCIATED_ARN =
  "DefaultCacheBehavior/FunctionAssociations/Items/FunctionAssociation/FunctionARN";

Deno.test("bootstrap: a distribution made before the rewrite function gets it on the next run", async () => {
  await using world = await startInfraWorld(BASE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  // Put the world back where an older version left it: no function, no association.
  const cf = world.aws.cloudfront.state;
  const [dist] = [...cf.distributions.values()];
  const behaviour = dist!.config.children.find((c) => c.name === "DefaultCacheBehavior")!;
  behaviour.children = behaviour.children.filter((c) => c.name !== "FunctionAssociations");
  cf.functions.delete(FN);

  const before = world.aws.cloudfront.calls.length;
  const run = await world.run(["bootstrap"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /created +CloudFront function production-blog-rewrite/);
  assert.match(run.stdout, /updated +distribution .*viewer-request function \(none\)/);
  assert.equal(cf.configText(dist!.id, ASSOCIATED_ARN), cf.functions.get(FN)?.arn);
  // Only the function and the association change; nothing is recreated.
  // (mutatingCalls() does not count Publish*, so it is counted from the journal.)
  const ops = world.aws.cloudfront.calls.map((c) => c.operation).slice(before);
  assert.deepEqual(
    ops.filter((op) => /^(Create|Publish|Update|Delete)/.test(op)),
    ["CreateFunction", "PublishFunction", "UpdateDistribution"],
  );
  assert.equal(world.aws.cloudfront.state.distributions.size, 1);
  assert.match((await world.run(["bootstrap"])).stdout, /No changes/);
});

Deno.test("bootstrap: rewrite code changed behind its back is updated (If-Match) and republished", async () => {
  await using world = await startInfraWorld(BASE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const fn = world.aws.cloudfront.state.functions.get(FN)!;
  fn.live = { ...fn.live!, code: "function handler(event) { return event.request; }" };
  fn.development = { ...fn.development, code: fn.live.code };

  const status = JSON.parse((await world.run(["status", "--json"])).stdout);
  const node = status.nodes.find((n: { id: string }) => n.id === "rewriteFunction");
  assert.equal(node.status, "drifted");
  assert.deepEqual(node.drift, ["code differs from this version's rewrite rules"]);

  const run = await world.run(["bootstrap"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /updated +CloudFront function production-blog-rewrite/);
  assert.equal(fn.live.code, rewriteFunctionCode("index.html"));
  const update = world.aws.cloudfront.callsOf("UpdateFunction");
  assert.equal(update.length, 1);
  assert.ok(update[0]!.input.IfMatch, "UpdateFunction carries If-Match");
  assert.equal(world.aws.cloudfront.callsOf("PublishFunction").length, 2);
  assert.match((await world.run(["bootstrap"])).stdout, /No changes/);
});

Deno.test("bootstrap: with a domain, prints the validation CNAMEs and attaches the alias once issued", async () => {
  await using world = await startInfraWorld(
    { ...BASE, domain: "blog.example.com", githubRepo: undefined, spa: true },
    { acm: { issueAfterDescribes: Infinity } },
  );
  const first = await world.run(["bootstrap"]);
  assert.equal(first.code, 0, first.stderr);
  const record = world.aws.acm.state.validationRecord("blog.example.com");
  assert.match(first.stdout, /Certificate for blog\.example\.com is PENDING_VALIDATION/);
  assert.ok(first.stdout.includes(`${record.name}  CNAME  ${record.value}`), first.stdout);
  assert.match(first.stderr, /served from .*cloudfront\.net until the certificate is issued/);
  const [dist] = [...world.aws.cloudfront.state.distributions.values()];
  const cf = world.aws.cloudfront.state;
  assert.deepEqual(cf.configTexts(dist!.id, "Aliases/Items"), []);
  // spa: client routes get the shell from the rewrite function; a 404 stays a 404.
  assert.equal(
    cf.configText(dist!.id, "CustomErrorResponses/Items/CustomErrorResponse/ResponsePagePath"),
    "/404.html",
  );
  assert.equal(
    cf.configText(dist!.id, "CustomErrorResponses/Items/CustomErrorResponse/ResponseCode"),
    "404",
  );
  assert.equal(
    world.aws.acm.state.certificates.get([...world.aws.acm.state.certificates.keys()][0]!)?.tags
      .get("app"),
    "blog",
  );

  const [arn] = [...world.aws.acm.state.certificates.keys()];
  world.aws.acm.state.issue(arn!);
  const second = await world.run(["bootstrap"]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /updated +distribution .*aliases/);
  assert.deepEqual(cf.configTexts(dist!.id, "Aliases/Items"), ["blog.example.com"]);
  assert.equal(cf.configText(dist!.id, "ViewerCertificate/ACMCertificateArn"), arn);
  assert.match(second.stdout, /Site: https:\/\/blog\.example\.com/);
  assert.equal(world.aws.acm.state.certificates.size, 1);

  const third = await world.run(["bootstrap"]);
  assert.match(third.stdout, /No changes/);

  // Through the deployed function and error pages: a client route gets the shell, a stale
  // tab's missing chunk a 404, never the shell's HTML with 200.
  const s3 = siteS3(world);
  try {
    const files: [string, string][] = [["index.html", "<app shell>"], ["assets/app.2.js", "js"]];
    for (const [key, body] of files) {
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: `site/${key}`, Body: body }));
    }
    const visit = (path: string) => requestThroughEdge(cf, s3, `https://blog.example.com${path}`);
    assert.deepEqual(
      [(await visit("/dashboard/settings")).status, (await visit("/dashboard/settings")).body],
      [200, "<app shell>"],
    );
    assert.equal((await visit("/")).body, "<app shell>");
    assert.equal((await visit("/assets/app.2.js")).body, "js");
    const stale = await visit("/assets/app.1.js");
    assert.equal(stale.status, 404);
    assert.notEqual(stale.body, "<app shell>");
  } finally {
    s3.destroy();
  }
});

Deno.test("bootstrap: a bucket name owned by another account is a one-line bucket_name_taken error", async () => {
  await using world = await startInfraWorld(BASE);
  world.s3.state.foreign.add(BUCKET);
  const run = await world.run(["bootstrap", "--json"]);
  assert.equal(run.code, 1);
  assert.equal(JSON.parse(run.stdout).error.code, "bucket_name_taken");
});

Deno.test("status: reports a node deleted behind its back, drift, and a failing read without aborting", async () => {
  await using world = await startInfraWorld(BASE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  world.aws.logs.state.groups.delete("/blog/production/cloudfront");
  world.aws.logs.state.groups.get("/aws/microvms/production-blog-builder")!.retentionInDays = 7;
  world.aws.iam.fail("GetRole", { code: "AccessDenied", status: 403, message: "not allowed" });
  const run = await world.run(["status", "--json"]);
  assert.equal(run.code, 0, run.stderr);
  const report = JSON.parse(run.stdout);
  const by = Object.fromEntries(report.nodes.map((n: { id: string }) => [n.id, n]));
  assert.equal(by.cdnLogGroup.status, "missing");
  assert.equal(by.cdnLogGroup.recorded.name, "/blog/production/cloudfront");
  assert.equal(by.builderLogGroup.status, "drifted");
  assert.deepEqual(by.builderLogGroup.drift, ["retention 7, want 30 days"]);
  // The first GetRole (the builder role's read) fails; the nodes after it are still read.
  assert.equal(by.builderRole.status, "error");
  assert.equal(by.builderRole.error.code, "aws_access_denied");
  assert.equal(by.deployRole.status, "present");
  assert.equal(by.distribution.status, "present");
  assert.equal(by.bucket.status, "present");
  assert.equal(report.ok, false);

  const text = await world.run(["status"]);
  assert.match(text.stdout, /missing +log group \/blog\/production\/cloudfront \(us-east-1\)/);
  assert.match(text.stdout, /present +distribution for .*: id=EDFAKE/);
});

Deno.test("bootstrap: an access-log delivery removed or repointed behind its back is rebuilt", async () => {
  await using world = await startInfraWorld(BASE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const logs = world.aws.logs.state;
  logs.deliveries.clear();
  const status = JSON.parse((await world.run(["status", "--json"])).stdout);
  const node = status.nodes.find((n: { id: string }) => n.id === "cdnLogDelivery");
  assert.equal(node.status, "drifted");
  assert.deepEqual(node.drift, ["no delivery from the source to the destination"]);

  const fixed = await world.run(["bootstrap"]);
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.match(fixed.stdout, /updated +access-log delivery production-blog-cdn/);
  assert.equal(logs.deliveries.size, 1);

  // Pointed at another log group: rebuilt onto the site's own.
  logs.groups.set("/elsewhere", {
    ...logs.groups.get("/blog/production/cloudfront")!,
    name: "/elsewhere",
  });
  logs.deliveryDestinations.get("production-blog-cdn")!.destinationResourceArn = logs.groupArn(
    "/elsewhere",
  );
  const again = await world.run(["bootstrap"]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /updated +access-log delivery/);
  assert.equal(
    logs.deliveryDestinations.get("production-blog-cdn")?.destinationResourceArn,
    `arn:aws:logs:us-east-1:${ACCOUNT}:log-group:/blog/production/cloudfront`,
  );
  assert.equal(logs.deliveries.size, 1);
  const after = JSON.parse((await world.run(["status", "--json"])).stdout);
  assert.equal(after.ok, true);
});

Deno.test("bootstrap: the access-log delivery is made in us-east-1 whatever the site's region", async () => {
  await using world = await startInfraWorld(BASE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const delivery = world.aws.logs.calls.filter((c) => /Deliver/.test(c.operation));
  assert.ok(delivery.length >= 4);
  assert.deepEqual([...new Set(delivery.map((c) => c.region))], ["us-east-1"]);
  const builderGroup = world.aws.logs.callsOf("CreateLogGroup")
    .find((c) => c.input.logGroupName === "/aws/microvms/production-blog-builder");
  assert.equal(builderGroup?.region, "eu-west-1");
});

Deno.test("bootstrap: repairs only the missing part, leaving other deliveries from the source alone", async () => {
  await using world = await startInfraWorld(BASE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const logs = world.aws.logs.state;
  // An operator's own extra delivery from the site's source, and 60 unrelated deliveries, so
  // ours is past the first DescribeDeliveries page.
  logs.groups.set("/audit", { ...logs.groups.get("/blog/production/cloudfront")!, name: "/audit" });
  const extraArn = `arn:aws:logs:us-east-1:${ACCOUNT}:delivery-destination:audit`;
  logs.deliveryDestinations.set("audit", {
    name: "audit",
    arn: extraArn,
    deliveryDestinationType: "CWL",
    outputFormat: "plain",
    destinationResourceArn: logs.groupArn("/audit"),
    tags: {},
  });
  const ours = [...logs.deliveries.values()][0]!;
  logs.deliveries.clear();
  for (let i = 0; i < 60; i++) {
    logs.deliveries.set(`other${i}`, {
      ...ours,
      id: `other${i}`,
      deliverySourceName: `other-${i}`,
    });
  }
  logs.deliveries.set("extra", { ...ours, id: "extra", deliveryDestinationArn: extraArn });
  logs.deliveries.set(ours.id, ours);

  const status = JSON.parse((await world.run(["status", "--json"])).stdout);
  assert.equal(status.ok, true, JSON.stringify(status.nodes));
  assert.match((await world.run(["bootstrap"])).stdout, /No changes/);

  // Our delivery gone, and the source too (the destination stays): both made again, the
  // destination untouched, the operator's delivery kept.
  logs.deliveries.delete(ours.id);
  const before = world.aws.logs.calls.length;
  const fixed = await world.run(["bootstrap"]);
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.match(fixed.stdout, /updated +access-log delivery/);
  assert.ok(logs.deliveries.has("extra"));
  const made = world.aws.logs.calls.slice(before).map((c) => c.operation);
  assert.deepEqual(made.filter((o) => /^(Put|Create|Delete)/.test(o)), ["CreateDelivery"]);

  for (const d of [...logs.deliveries.values()]) {
    if (d.deliverySourceName === "production-blog-cdn") logs.deliveries.delete(d.id);
  }
  logs.deliverySources.delete("production-blog-cdn");
  const again = await world.run(["bootstrap"]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /created +access-log delivery/);
  assert.equal(logs.deliverySources.get("production-blog-cdn")?.tags.app, "blog");
  assert.equal(JSON.parse((await world.run(["status", "--json"])).stdout).ok, true);
});

Deno.test("bootstrap: a delivery that reports a conflict while the source settles is retried", async () => {
  await using world = await startInfraWorld(BASE);
  world.aws.logs.fail("CreateDelivery", {
    code: "ConflictException",
    message: "Requested resource is currently being updated. Please try again later",
    times: 2,
  });
  const run = await world.run(["bootstrap"]);
  assert.equal(run.code, 0, run.stderr);
  assert.equal(world.aws.logs.callsOf("CreateDelivery").length, 3);
  assert.equal(world.aws.logs.state.deliveries.size, 1);
});

Deno.test("bootstrap: a conflict that does not settle fails the node instead of reporting it made", async () => {
  await using world = await startInfraWorld(BASE);
  world.aws.logs.fail("CreateDelivery", { code: "ConflictException", times: 10 });
  const run = await world.run(["bootstrap", "--json"]);
  assert.equal(run.code, 1);
  assert.match(JSON.parse(run.stdout).error.message, /logs:CreateDelivery/);
  assert.equal(world.aws.logs.state.deliveries.size, 0);
});

Deno.test("bootstrap: a distribution whose logs already go elsewhere is a clear error", async () => {
  await using world = await startInfraWorld(BASE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const logs = world.aws.logs.state;
  const [dist] = [...world.aws.cloudfront.state.distributions.values()];
  logs.deliveries.clear();
  logs.deliverySources.delete("production-blog-cdn");
  logs.deliverySources.set("console-made", {
    name: "console-made",
    arn: `arn:aws:logs:us-east-1:${ACCOUNT}:delivery-source:console-made`,
    resourceArns: [dist!.arn],
    service: "cloudfront",
    logType: "ACCESS_LOGS",
    tags: {},
  });
  const run = await world.run(["bootstrap"]);
  assert.equal(run.code, 1);
  assert.match(run.stderr, /already go to delivery source console-made/);
  assert.match(run.stderr, /hint: delete delivery source console-made/);
});

Deno.test("bootstrap: adds the incomplete-upload rule beside the owner's lifecycle rules", async () => {
  await using world = await startInfraWorld(BASE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const cfg = world.s3.state.configs.get(BUCKET)!;
  cfg.set(
    "lifecycle",
    '<LifecycleConfiguration xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Rule><ID>old-builds</ID>' +
      "<Filter><Prefix>builds/</Prefix></Filter><Status>Enabled</Status>" +
      "<Expiration><Days>90</Days></Expiration></Rule></LifecycleConfiguration>",
  );
  const status = JSON.parse((await world.run(["status", "--json"])).stdout);
  const bucket = status.nodes.find((n: { id: string }) => n.id === "bucket");
  assert.deepEqual(bucket.drift, [
    "no lifecycle rule removing incomplete multipart uploads",
    "no lifecycle rule deploy-expire-kept-build-outputs",
    "no lifecycle rule deploy-expire-build-cache",
  ]);

  const fixed = await world.run(["bootstrap"]);
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.match(fixed.stdout, /updated +bucket/);
  const lifecycle = cfg.get("lifecycle")!;
  assert.match(lifecycle, /<ID>old-builds<\/ID>/);
  assert.match(lifecycle, /<ID>deploy-abort-incomplete-multipart-uploads<\/ID>/);
  assert.match(lifecycle, /<ID>deploy-expire-kept-build-outputs<\/ID>/);
  assert.match(lifecycle, /<ID>deploy-expire-build-cache<\/ID>/);
  assert.match((await world.run(["bootstrap"])).stdout, /No changes/);
});

Deno.test("bootstrap: kept build outputs expire after twice retention.buildsDays; a new value is drift bootstrap repairs", async () => {
  await using world = await startInfraWorld(BASE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const cfg = world.s3.state.configs.get(BUCKET)!;
  assert.match(
    cfg.get("lifecycle")!,
    /<Rule><Status>Enabled<\/Status><Expiration><Days>60<\/Days><\/Expiration><ID>deploy-expire-kept-build-outputs<\/ID><Filter><Prefix>outputs\/<\/Prefix><\/Filter><\/Rule>/,
  );
  // The MicroVM build cache: entries expire 30 days after their last use.
  assert.match(
    cfg.get("lifecycle")!,
    /<Rule><Status>Enabled<\/Status><Expiration><Days>30<\/Days><\/Expiration><ID>deploy-expire-build-cache<\/ID><Filter><Prefix>cache\/<\/Prefix><\/Filter><\/Rule>/,
  );
  await world.configure({ ...BASE, retention: { buildsDays: 7 } });
  const status = JSON.parse((await world.run(["status", "--json"])).stdout);
  const bucket = status.nodes.find((n: { id: string }) => n.id === "bucket");
  assert.deepEqual(bucket.drift, [
    "lifecycle rule deploy-expire-kept-build-outputs expires after 60 days, want 14",
  ]);
  const fixed = await world.run(["bootstrap"]);
  assert.equal(fixed.code, 0, fixed.stderr);
  assert.match(fixed.stdout, /updated +bucket/);
  assert.match(cfg.get("lifecycle")!, /<Days>14<\/Days>/);
  assert.doesNotMatch(cfg.get("lifecycle")!, /<Days>60<\/Days>/);
  assert.match((await world.run(["bootstrap"])).stdout, /No changes/);
});

Deno.test("delete: empties site/ and invalidates /*, keeping builds, state and infrastructure", async () => {
  await using world = await startInfraWorld(BASE);
  const missing = await world.run(["delete", "--json", "--yes"]);
  assert.equal(JSON.parse(missing.stdout).error.code, "state_missing");

  assert.equal((await world.run(["bootstrap"])).code, 0);
  const s3 = s3Client(world);
  try {
    for (const Key of ["site/index.html", "site/a/b.css", "builds/01J/site.zip"]) {
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: "x" }));
    }
  } finally {
    s3.destroy();
  }
  const run = await world.run(["delete", "--yes"]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(
    run.stdout,
    /Deleted 2 object\(s\) from s3:\/\/production-blog-123456789012\/site\//,
  );
  const [dist] = [...world.aws.cloudfront.state.distributions.values()];
  assert.deepEqual(world.aws.cloudfront.state.invalidatedPaths(dist!.id), ["/*"]);
  assert.ok(await readState(world));
  const check = s3Client(world);
  try {
    await check.send(new GetObjectCommand({ Bucket: BUCKET, Key: "builds/01J/site.zip" }));
  } finally {
    check.destroy();
  }
});

Deno.test("delete: a throttled invalidation is retried, not left owed by an emptied site", async () => {
  await using world = await startInfraWorld(BASE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  // More consecutive faults than the SDK's own three attempts absorb.
  world.aws.cloudfront.fail("CreateInvalidation", {
    code: "ServiceUnavailable",
    status: 503,
    times: 4,
  });
  const run = await world.run(["delete", "--yes"]);
  assert.equal(run.code, 0, run.stderr);
  const [dist] = [...world.aws.cloudfront.state.distributions.values()];
  assert.deepEqual(world.aws.cloudfront.state.invalidatedPaths(dist!.id), ["/*"]);
  assert.match(run.stdout, /Invalidated \/\* on distribution/);
});

Deno.test("delete: without a terminal refuses unless --yes; on a terminal asks for the environment's name", async () => {
  await using world = await startInfraWorld(BASE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const s3 = s3Client(world);
  try {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: "site/index.html", Body: "x" }));
  } finally {
    s3.destroy();
  }
  const [dist] = [...world.aws.cloudfront.state.distributions.values()];
  const refused = await world.run(["delete", "--json"]);
  assert.equal(refused.code, 1);
  assert.equal(JSON.parse(refused.stdout).error.code, "confirmation_required");
  assert.match(refused.stderr, /deploy delete production --yes/);
  const terminal = (answer: string) => ({
    stdinIsTty: true,
    stdoutIsTty: true,
    prompt: () => Promise.resolve(answer),
  });
  const declined = await world.run(["delete"], terminal("no"));
  assert.equal(declined.code, 1);
  assert.match(declined.stderr, /aborted|not deleted/i);
  assert.deepEqual(world.aws.cloudfront.state.invalidatedPaths(dist!.id), []);

  // Not while a deploy holds the environment's lock.
  const lock = s3Client(world);
  try {
    await lock.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: "locks/production.json",
        Body: JSON.stringify({
          version: 1,
          holder: "deploy production (pid 7)",
          token: "t",
          acquiredAt: new Date().toISOString(),
          expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      }),
    );
    const locked = await world.run(["delete", "--yes", "--json"]);
    assert.equal(JSON.parse(locked.stdout).error.code, "deploy_locked");
    assert.match(locked.stderr, /deploy production \(pid 7\)/);
    await lock.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: "locks/production.json" }));
  } finally {
    lock.destroy();
  }
  const confirmed = await world.run(["delete"], terminal("production"));
  assert.equal(confirmed.code, 0, confirmed.stderr);
  assert.match(confirmed.stdout, /Deleted 1 object\(s\)/);
  assert.deepEqual(world.aws.cloudfront.state.invalidatedPaths(dist!.id), ["/*"]);
});

Deno.test("destroy: refuses without --yes; with --yes removes every resource in reverse order", async () => {
  await using world = await startInfraWorld({ ...BASE, domain: "blog.example.com" }, {
    acm: { issueAfterDescribes: 0 },
  });
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const refused = await world.run(["destroy", "--json"]);
  assert.equal(refused.code, 1);
  assert.equal(JSON.parse(refused.stdout).error.code, "confirmation_required");
  assert.equal(world.aws.cloudfront.state.distributions.size, 1);

  const run = await world.run(["destroy", "--yes"]);
  assert.equal(run.code, 0, run.stderr);
  const cf = world.aws.cloudfront.state;
  assert.equal(cf.distributions.size, 0);
  assert.equal(cf.originAccessControls.size, 0);
  assert.equal(world.aws.acm.state.certificates.size, 0);
  assert.equal(world.aws.logs.state.groups.size, 0);
  assert.equal(world.aws.logs.state.deliveries.size, 0);
  assert.equal(world.aws.logs.state.deliverySources.size, 0);
  assert.equal(world.aws.logs.state.deliveryDestinations.size, 0);
  assert.equal(world.aws.iam.state.roles.size, 0);
  assert.equal(await world.s3.bucketExists(BUCKET), false);
  // The account-wide OIDC provider stays for other sites.
  assert.equal(world.aws.iam.state.oidcProviders.size, 1);
  assert.match(run.stdout, /kept +OIDC provider/);
  // The distribution was disabled, then deleted after CloudFront deployed the change.
  const ops = world.aws.cloudfront.calls.map((c) => c.operation);
  const disable = ops.lastIndexOf("UpdateDistribution");
  assert.ok(disable >= 0 && disable < ops.indexOf("DeleteDistribution"));
  assert.ok(ops.indexOf("DeleteDistribution") < ops.indexOf("DeleteOriginAccessControl"));
  // The rewrite function goes once no distribution uses it.
  assert.equal(cf.functions.size, 0);
  assert.ok(ops.indexOf("DeleteDistribution") < ops.indexOf("DeleteFunction"));

  const again = await world.run(["destroy", "--yes"]);
  assert.equal(again.code, 0, again.stderr);
  assert.match(again.stdout, /Nothing to destroy\./);
});

Deno.test("status: shows the paths a failed deploy still owes an invalidation", async () => {
  await using world = await startInfraWorld(BASE);
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const before = JSON.parse((await world.run(["status", "--json"])).stdout);
  assert.deepEqual(before.owedInvalidation, []);
  assert.match((await world.run(["status"])).stdout, /invalidation +nothing owed/);

  const s3 = s3Client(world);
  try {
    await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: "state/production.invalidation.json",
        Body: JSON.stringify({ version: 1, keys: ["blog/index.html", "app.css"], all: false }),
      }),
    );
  } finally {
    s3.destroy();
  }
  const after = JSON.parse((await world.run(["status", "--json"])).stdout);
  assert.deepEqual(after.owedInvalidation, ["/app.css", "/blog", "/blog/", "/blog/index.html"]);
  assert.match(
    (await world.run(["status"])).stdout,
    /invalidation +owed by an unfinished deploy \(the next deploy sends it\): \/app\.css \/blog \/blog\/ \/blog\/index\.html/,
  );
});

Deno.test("bootstrap: an endpoint without the MicroVM image listing is named, not retried forever", async () => {
  await using world = await startInfraWorld(BASE);
  // What ministack 1.5.33 answers (docs/aws-conformance.md): a 404 to a listing.
  world.aws.microvms.fail("ListManagedMicrovmImages", {
    code: "ResourceNotFoundException",
    status: 404,
    message: "Function not found",
    times: 100,
  });
  const run = await world.run(["bootstrap", "--json"]);
  assert.equal(run.code, 1);
  const error = JSON.parse(run.stdout).error;
  assert.equal(error.code, "aws_operation_unsupported");
  assert.match(error.message, /does not support lambda:ListManagedMicrovmImages/);
  assert.doesNotMatch(error.hint, /again \(it resumes/);
  assert.match(error.hint, /"build": \{ "builder": "local" \}/);
  assert.equal(world.aws.microvms.callsOf("ListManagedMicrovmImages").length, 1);
});

Deno.test("bootstrap: a local-builder site creates none of the MicroVM builder's resources", async () => {
  await using world = await startInfraWorld({ ...BASE, build: { builder: "local" } });
  const first = await world.run(["bootstrap"]);
  assert.equal(first.code, 0, first.stderr);
  assert.doesNotMatch(first.stdout, /builder|MicroVM|microvm/i);
  assert.deepEqual(world.aws.microvms.calls, []);
  assert.equal(world.aws.logs.state.groups.has("/aws/microvms/production-blog-builder"), false);
  assert.equal(world.aws.iam.state.roles.has("production-blog-builder"), false);
  const policy = JSON.stringify([...world.aws.iam.state.roles.values()]);
  assert.doesNotMatch(policy, /microvm/i);
  const status = await world.run(["status"]);
  assert.equal(status.code, 0, status.stderr);
  assert.doesNotMatch(status.stdout, /builder|MicroVM/i);
});
