/**
 * The AWS endpoint variables reach every command the same way, because every command opens
 * the site through one client factory: `AWS_ENDPOINT_URL` for every service,
 * `AWS_ENDPOINT_URL_<SERVICE>` over it for one service, and neither under
 * `AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true`. Two loopback recorders stand in for AWS: they
 * note which service signed each request and refuse it (403), so each command stops at its
 * first refusal, having shown where it sent its requests.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { lookupAccountIdWithSts } from "../../deploy/aws/clients.ts";
import { runCli } from "../../deploy/cli/run.ts";
import { captureCli } from "../../deploy/cli/test_deps.ts";

const ACCOUNT = "123456789012";
const IDENTITY = `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">` +
  `<GetCallerIdentityResult><Arn>arn:aws:iam::${ACCOUNT}:user/deployer</Arn>` +
  `<UserId>AIDAFAKE</UserId><Account>${ACCOUNT}</Account></GetCallerIdentityResult>` +
  `<ResponseMetadata><RequestId>1</RequestId></ResponseMetadata></GetCallerIdentityResponse>`;

/**
 * A loopback server that records the SigV4 service of every request; it answers STS
 * `GetCallerIdentity` (so a command gets past the account) and refuses everything else.
 */
function startRecorder() {
  const services: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    // Credential=AKID/20260101/us-east-1/<service>/aws4_request
    const scope = /Credential=[^/]+\/\d+\/[^/]+\/([^/]+)\//.exec(
      req.headers.get("authorization") ?? "",
    );
    const service = scope?.[1] ?? "unsigned";
    services.push(service);
    if (service === "sts") {
      return new Response(IDENTITY, { headers: { "content-type": "text/xml" } });
    }
    const body = `<?xml version="1.0" encoding="UTF-8"?><Error><Code>AccessDenied</Code>` +
      `<Message>refused by the recorder</Message></Error>`;
    return new Response(body, {
      status: 403,
      headers: { "content-type": "application/xml", "x-amzn-errortype": "AccessDenied" },
    });
  });
  return {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    services,
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}

async function withSiteRepo(fn: (root: string) => Promise<void>): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "deploy-endpoints-" }));
  try {
    await Deno.mkdir(join(root, ".git"));
    await Deno.mkdir(join(root, "config"));
    await Deno.writeTextFile(
      join(root, "config/production.jsonc"),
      '{ "siteName": "blog", "region": "eu-west-1" }',
    );
    await fn(root);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

/** Runs one command in `root` with `environ` (no AWS_ACCOUNT_ID: the account comes from STS). */
async function run(root: string, argv: string[], environ: Record<string, string>) {
  const cli = captureCli({
    cwd: root,
    environ,
    lookupAccountId: () => lookupAccountIdWithSts(environ),
  });
  const code = await runCli([...argv, "--json"], cli.deps);
  return { code, error: JSON.parse(cli.stdout() || "{}").error, stderr: cli.stderr() };
}

const CREDENTIALS = {
  AWS_ACCESS_KEY_ID: "FAKEACCESSKEY",
  AWS_SECRET_ACCESS_KEY: "FAKESECRET",
  AWS_REGION: "eu-west-1",
};

/** What each command asks of AWS first: the account (STS), then the site bucket (S3). */
const COMMANDS: readonly (readonly string[])[] = [
  ["bootstrap"],
  ["deploy", "--builder", "local"],
  ["status"],
  ["history"],
];

type Recorder = ReturnType<typeof startRecorder>;
type Run = Awaited<ReturnType<typeof run>>;

/** Runs every command with both endpoint variables (and `extra`) set to fresh recorders. */
async function eachCommand(
  extra: Record<string, string>,
  check: (command: string, r: Run, all: Recorder, s3: Recorder) => void,
): Promise<void> {
  await withSiteRepo(async (root) => {
    for (const argv of COMMANDS) {
      await using all = startRecorder();
      await using s3 = startRecorder();
      const r = await run(root, [...argv], {
        ...CREDENTIALS,
        AWS_ENDPOINT_URL: all.endpoint,
        AWS_ENDPOINT_URL_S3: s3.endpoint,
        ...extra,
      });
      check(argv[0]!, r, all, s3);
    }
  });
}

/** Nothing may leave the machine: a request to a real AWS endpoint fails here. */
const LOOPBACK_ONLY: Deno.PermissionOptionsObject = {
  net: ["127.0.0.1"],
  read: true,
  write: true,
  env: true,
  sys: true,
  run: true,
};

Deno.test({
  name:
    "endpoints: AWS_ENDPOINT_URL and AWS_ENDPOINT_URL_S3 reach bootstrap, deploy, status and history alike",
  permissions: LOOPBACK_ONLY,
  fn: () =>
    eachCommand({}, (command, r, all, s3) => {
      // status reports what it could not read and exits 0; the others stop at the refusal.
      assert.equal(r.code, command === "status" ? 0 : 1, r.stderr);
      // STS (the account) went to the shared endpoint, S3 (the bucket) to its own.
      assert.equal(all.services[0], "sts", `${command}: ${all.services.join(",")}`);
      assert.ok(!all.services.includes("s3"), `${command}: ${all.services.join(",")}`);
      assert.ok(s3.services.length > 0, `${command} reached the S3 endpoint`);
      assert.ok(s3.services.every((s) => s === "s3"), s3.services.join(","));
      if (command === "status") {
        // status reads every resource: the other services used the shared endpoint too.
        for (const service of ["cloudfront", "iam", "logs", "lambda"]) {
          assert.ok(
            all.services.some((s) => s.startsWith(service)),
            `${service}: ${all.services.join(",")}`,
          );
        }
      }
    }),
});

Deno.test({
  name:
    "endpoints: AWS_IGNORE_CONFIGURED_ENDPOINT_URLS=true makes every command ignore both variables",
  permissions: LOOPBACK_ONLY,
  fn: () =>
    eachCommand({ AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: "true" }, (command, r, all, s3) => {
      assert.deepEqual([...all.services, ...s3.services], [], `${command} used an override`);
      // It went for the SDK's own STS endpoint, which this test may not reach.
      assert.match(JSON.stringify(r.error) + r.stderr, /sts\.eu-west-1\.amazonaws\.com/);
    }),
});
