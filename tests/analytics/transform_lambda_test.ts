import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { unzipSync } from "fflate";
import { transformPackage } from "../../analytics/transform/lambda_package.ts";
import { envelope, PAGE_VIEW, TEST_SECRET } from "../../analytics/transform/_test_records.ts";
import { startSecretsManagerFake } from "../fakes/secrets_manager.ts";

Deno.test("the bundled transform runs under Node and reads the salt from Secrets Manager", async () => {
  await using sm = startSecretsManagerFake();
  const arn =
    `arn:aws:secretsmanager:us-east-1:123456789012:secret:blog/prod/analytics-salt-000001`;
  sm.state.secrets.set("blog/prod/analytics-salt", {
    name: "blog/prod/analytics-salt",
    arn,
    value: "",
    binary: Buffer.from(TEST_SECRET).toString("base64"),
    tags: {},
    versions: 1,
    createdAt: new Date(),
    lastChangedAt: new Date(),
  });
  const dir = await Deno.makeTempDir();
  try {
    const zip = unzipSync(transformPackage().zip);
    await Deno.writeFile(`${dir}/index.mjs`, zip["index.mjs"]!);
    // The Lambda runtime provides the AWS SDK; here the workspace's installed copy stands in.
    await Deno.mkdir(`${dir}/node_modules/@aws-sdk`, { recursive: true });
    const sdk = new URL("../../node_modules/@aws-sdk/client-secrets-manager", import.meta.url);
    await Deno.symlink(
      await Deno.realPath(sdk),
      `${dir}/node_modules/@aws-sdk/client-secrets-manager`,
    );
    const event = envelope([JSON.stringify(PAGE_VIEW), "nope"]);
    await Deno.writeTextFile(
      `${dir}/run.mjs`,
      `import { writeFileSync } from "node:fs";\nimport { handler } from "./index.mjs";\n` +
        `const out = await handler(${JSON.stringify(event)});\n` +
        `writeFileSync("out.json", JSON.stringify(out));\n`,
    );
    const run = await new Deno.Command("node", {
      args: ["run.mjs"],
      cwd: dir,
      clearEnv: true,
      env: {
        PATH: Deno.env.get("PATH") ?? "",
        SALT_SECRET_ID: arn,
        AWS_REGION: "us-east-1",
        AWS_ACCESS_KEY_ID: "FAKE",
        AWS_SECRET_ACCESS_KEY: "FAKE",
        AWS_ENDPOINT_URL_SECRETS_MANAGER: sm.endpoint,
        AWS_EC2_METADATA_DISABLED: "true",
      },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(run.stderr);
    assert.ok(run.success, stderr);
    const out = JSON.parse(await Deno.readTextFile(`${dir}/out.json`)) as {
      records: Array<{ result: string; data: string }>;
    };
    assert.deepEqual(out.records.map((r) => r.result), ["Ok", "ProcessingFailed"]);
    const row = JSON.parse(Buffer.from(out.records[0]!.data, "base64").toString());
    assert.equal(row.uri, "/posts/hello/");
    const log = new TextDecoder().decode(run.stdout);
    assert.match(log, /"msg":"batch had records that could not be mapped"/);
    assert.equal(sm.callsOf("GetSecretValue").length, 1);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
