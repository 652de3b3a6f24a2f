/**
 * End to end: `bootstrap` provisions what the MicroVM builder needs (the builder role and the
 * managed base image, recorded as `builder` in the state), a MicroVM build (`rollback`) then
 * runs on nothing but what bootstrap wrote, `status` reports the builder resources, and
 * `destroy` removes the builder image and role. In-process, against s3rver and the loopback
 * IAM, MicroVMs, Logs, CloudFront, ACM and STS fakes, through the real SDK clients.
 */
import assert from "node:assert/strict";
import { GetObjectCommand, PutObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { FixedClock } from "@org/shared";
import { runCli } from "../../deploy/cli/run.ts";
import { captureCli } from "../../deploy/cli/test_deps.ts";
import { createRollbackCommand } from "../../deploy/commands/rollback.ts";
import { COMMAND_TABLE } from "../../deploy/commands/table.ts";
import { lookupAccountIdWithSts } from "../../deploy/aws/clients.ts";
import { builderSeams, fakeBundle, reportingRun } from "../support/microvm_builder.ts";
import { ACCOUNT, type InfraWorld, mutatingCalls, startInfraWorld } from "./infra_world.ts";

const BUCKET = `production-blog-${ACCOUNT}`;
const ROLE = "production-blog-builder";
const ROLE_ARN = `arn:aws:iam::${ACCOUNT}:role/${ROLE}`;
const BASE_IMAGE = "arn:aws:lambda:eu-west-1:aws:microvm-image:al2023-2";
const CONFIG = { siteName: "blog", region: "eu-west-1", app: "blog", githubRepo: "acme/blog" };

function s3Client(world: InfraWorld): S3Client {
  return new S3Client({
    region: "eu-west-1",
    endpoint: world.s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
  });
}

async function readState(world: InfraWorld): Promise<Record<string, unknown>> {
  const s3 = s3Client(world);
  try {
    const out = await s3.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: "state/production.json" }),
    );
    return JSON.parse(await out.Body!.transformToString());
  } finally {
    s3.destroy();
  }
}

/** A world whose MicroVMs fake plays the build agent: manifest to S3, marker to the log. */
function builderWorld(): Promise<InfraWorld> {
  let world: InfraWorld | undefined;
  return startInfraWorld(CONFIG, {
    microvms: {
      managedImages: ["al2023-1", "al2023-2", "ubuntu-24"],
      imageReadyAfterReads: 0,
      runningAfterReads: 0,
      onRun: reportingRun(
        (group, stream, lines) => world!.aws.logs.state.append(group, stream, lines),
        () => s3Client(world!),
        ["index.html"],
      ),
    },
  }).then((w) => (world = w));
}

Deno.test("bootstrap: creates the builder role and records builder settings; a second run changes nothing", async () => {
  await using world = await builderWorld();
  const first = await world.run(["bootstrap"]);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /unchanged +managed base image al2023 \(newest\)/);
  assert.match(first.stdout, new RegExp(`created +role ${ROLE}`));

  const role = world.aws.iam.state.roles.get(ROLE);
  assert.ok(role, "builder role created");
  const trust = JSON.parse(decodeURIComponent(role.assumeRolePolicyDocument));
  assert.deepEqual(trust.Statement[0].Principal, { Service: "lambda.amazonaws.com" });
  assert.deepEqual(trust.Statement[0].Condition, {
    StringEquals: { "aws:SourceAccount": ACCOUNT },
  });
  const policy = JSON.parse(decodeURIComponent(role.inlinePolicies.get("builder")!));
  assert.ok(
    JSON.stringify(policy).includes(`arn:aws:s3:::${BUCKET}/site/*`),
    "the role writes the live site",
  );
  assert.equal(role.tags.get("environment"), "production");

  // The deploy role (CI) may pass exactly this role to the MicroVMs service.
  const deploy = JSON.parse(
    decodeURIComponent(
      world.aws.iam.state.roles.get("production-blog-gh")!.inlinePolicies.get(
        "deploy",
      )!,
    ),
  );
  const pass = deploy.Statement.find((s: { Sid?: string }) => s.Sid === "PassBuilderRole");
  assert.equal(pass.Resource, ROLE_ARN);

  const state = await readState(world);
  assert.deepEqual(state.builder, {
    baseImageArn: BASE_IMAGE,
    buildRoleArn: ROLE_ARN,
    executionRoleArn: ROLE_ARN,
  });
  const nodes = state.nodes as Record<string, { outputs: Record<string, unknown> }>;
  assert.equal(nodes.builderRole?.outputs.arn, ROLE_ARN);
  assert.equal(nodes.builderBaseImage?.outputs.name, "al2023-2");
  assert.equal(nodes.builderImage, undefined, "bootstrap does not record the builder image");

  const before = mutatingCalls(world).length;
  const second = await world.run(["bootstrap"]);
  assert.equal(second.code, 0, second.stderr);
  assert.match(second.stdout, /No changes: every resource is up to date\./);
  assert.deepEqual(mutatingCalls(world).slice(before), []);
  assert.equal(world.aws.microvms.callsOf("CreateMicrovmImage").length, 0);
});

Deno.test("bootstrap: DEPLOY_BUILDER_BASE_IMAGE picks another managed image; an unknown one fails clearly", async () => {
  await using world = await builderWorld();
  world.env.DEPLOY_BUILDER_BASE_IMAGE = "ubuntu-24";
  assert.equal((await world.run(["bootstrap"])).code, 0);
  const state = await readState(world);
  assert.equal(
    (state.builder as { baseImageArn: string }).baseImageArn,
    "arn:aws:lambda:eu-west-1:aws:microvm-image:ubuntu-24",
  );

  world.env.DEPLOY_BUILDER_BASE_IMAGE = "debian-12";
  const bad = await world.run(["bootstrap", "--json"]);
  assert.equal(bad.code, 1);
  const error = JSON.parse(bad.stdout).error;
  assert.equal(error.code, "builder_not_configured");
  assert.match(error.message, /no managed MicroVM base image debian-12 in eu-west-1/);
});

Deno.test("a MicroVM build runs on what bootstrap wrote; status reports the builder; destroy removes image and role", async () => {
  await using world = await builderWorld();
  assert.equal((await world.run(["bootstrap"])).code, 0);

  // Before any build: the builder image is missing, which status does not count as a fault.
  const early = await world.run(["status", "--json"]);
  const earlyBy = Object.fromEntries(
    JSON.parse(early.stdout).nodes.map((n: { id: string }) => [n.id, n]),
  );
  assert.equal(earlyBy.builderImage.status, "missing");
  assert.equal(earlyBy.builderImage.optional, true);
  assert.equal(JSON.parse(early.stdout).ok, true);

  // A stored source, rebuilt through the MicroVM builder (rollback: no local zip needed).
  const s3 = s3Client(world);
  await s3.send(
    new PutObjectCommand({
      Bucket: BUCKET,
      Key: "build/aaa111.zip",
      Body: new Uint8Array([80, 75, 5, 6]),
    }),
  ).finally(() => s3.destroy());
  const clock = new FixedClock(Date.parse("2026-05-04T10:00:00.000Z"));
  const rollback = createRollbackCommand(builderSeams(clock, { bundle: fakeBundle("d") }));
  const commands = {
    ...COMMAND_TABLE,
    commands: COMMAND_TABLE.commands.map((c) => c.name === "rollback" ? rollback : c),
  };
  const cli = captureCli({
    cwd: world.root,
    environ: world.env,
    commands,
    lookupAccountId: () => lookupAccountIdWithSts(world.env),
  });
  assert.equal(await runCli(["rollback", "aaa111", "--json"], cli.deps), 0, cli.stderr());
  assert.deepEqual(JSON.parse(cli.stdout()).changedKeys, ["index.html"]);
  const created = world.aws.microvms.callsOf("CreateMicrovmImage")[0]!.input;
  assert.equal(created.name, "production-blog-builder");
  assert.equal(created.baseImageArn, BASE_IMAGE);
  assert.equal(created.buildRoleArn, ROLE_ARN);
  const run = world.aws.microvms.callsOf("RunMicrovm")[0]!.input;
  assert.equal(run.executionRoleArn, ROLE_ARN);
  assert.deepEqual(
    (run.logging as { cloudWatch: { logGroup: string } }).cloudWatch.logGroup,
    "/aws/microvms/production-blog-builder",
  );

  const status = await world.run(["status", "--json"]);
  assert.equal(status.code, 0, status.stderr);
  const by = Object.fromEntries(
    JSON.parse(status.stdout).nodes.map((n: { id: string }) => [n.id, n]),
  );
  assert.equal(by.builderRole.status, "present");
  assert.equal(by.builderRole.live.arn, ROLE_ARN);
  assert.equal(by.builderBaseImage.status, "present");
  assert.equal(by.builderBaseImage.live.arn, BASE_IMAGE);
  assert.equal(by.builderImage.status, "present");
  assert.equal(by.builderImage.live.state, "CREATED");
  const text = await world.run(["status"]);
  assert.match(text.stdout, /present +builder image production-blog-builder/);

  const destroy = await world.run(["destroy", "--yes"]);
  assert.equal(destroy.code, 0, destroy.stderr);
  assert.match(destroy.stdout, /deleted +builder image production-blog-builder/);
  assert.match(destroy.stdout, new RegExp(`deleted +role ${ROLE}`));
  assert.match(destroy.stdout, /kept +managed base image/);
  assert.equal(world.aws.microvms.state.images.size, 0);
  assert.equal(world.aws.iam.state.roles.size, 0);
  // The image goes before the role it was built with; the role's inline policy before the role.
  const order = destroy.stdout.split("\n");
  const at = (re: RegExp) => order.findIndex((l) => re.test(l));
  assert.ok(at(/builder image/) < at(new RegExp(`role ${ROLE}`)));
  const iamOps = world.aws.iam.calls.map((c) => `${c.operation}:${c.input.RoleName ?? ""}`);
  assert.ok(
    iamOps.indexOf(`DeleteRolePolicy:${ROLE}`) < iamOps.indexOf(`DeleteRole:${ROLE}`),
    iamOps.join(","),
  );
  assert.ok(iamOps.includes(`DeleteRole:${ROLE}`));
});
