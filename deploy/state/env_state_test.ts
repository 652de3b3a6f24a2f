import assert from "node:assert/strict";
import type { S3Client } from "@aws-sdk/client-s3";
import { DeployError } from "../errors.ts";
import { buildEnvState, parseEnvState, readEnvState } from "./env_state.ts";

const ID = {
  env: "production",
  siteName: "blog",
  accountId: "123456789012",
  region: "eu-west-1",
  bucket: "production-blog-123456789012",
};

Deno.test("buildEnvState() derives the top-level fields the deploy command reads from the nodes", () => {
  const at = "2026-01-01T00:00:00.000Z";
  const state = buildEnvState(ID, {
    distribution: {
      outputs: { id: "E1", arn: "arn:d", domainName: "d1.cloudfront.net", aliases: [] },
      updatedAt: at,
    },
    oac: { outputs: { id: "O1" }, updatedAt: at },
    builderLogGroup: { outputs: { name: "/aws/microvms/production-blog-builder" }, updatedAt: at },
  }, new Date(at));
  assert.equal(state.distributionId, "E1");
  assert.equal(state.distributionDomain, "d1.cloudfront.net");
  assert.equal(state.aliasAttached, false);
  assert.equal(state.oacId, "O1");
  assert.deepEqual(state.logGroups, { builder: "/aws/microvms/production-blog-builder" });
  assert.equal(state.certificateArn, undefined);
  assert.equal(state.createdAt, at);
});

Deno.test("buildEnvState() keeps createdAt of the previous state", () => {
  const first = buildEnvState(ID, {}, new Date("2026-01-01T00:00:00Z"));
  const next = buildEnvState(ID, {}, new Date("2026-02-01T00:00:00Z"), first);
  assert.equal(next.createdAt, "2026-01-01T00:00:00.000Z");
  assert.equal(next.updatedAt, "2026-02-01T00:00:00.000Z");
});

Deno.test("parseEnvState() rejects a file that is not a version 1 state", () => {
  assert.throws(
    () => parseEnvState({ version: 2 }, "s3://b/state/production.json"),
    (err) => err instanceof DeployError && err.code === "state_invalid",
  );
  const ok = parseEnvState(buildEnvState(ID, {}, new Date()), "x");
  assert.equal(ok.bucket, ID.bucket);
});

/** An S3 client whose every GetObject returns `body` (or NoSuchKey when undefined). */
function s3Returning(body: string | undefined): S3Client {
  const send = () =>
    body === undefined
      ? Promise.reject(Object.assign(new Error("missing"), {
        name: "NoSuchKey",
        $metadata: { httpStatusCode: 404 },
      }))
      : Promise.resolve({ Body: { transformToString: () => Promise.resolve(body) } });
  return { send } as unknown as S3Client;
}

Deno.test("readEnvState() is null when there is no state file yet", async () => {
  assert.equal(await readEnvState(s3Returning(undefined), "b", "production"), null);
});

Deno.test("readEnvState() rejects a corrupt state file with state_invalid naming its key", async () => {
  for (const body of ["{ not json", "[1, 2]", "null", '"text"']) {
    await assert.rejects(readEnvState(s3Returning(body), "b", "staging"), (err) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "state_invalid");
      assert.match(err.message, /^s3:\/\/b\/state\/staging\.json is not/);
      assert.match(err.hint, /deploy bootstrap/);
      return true;
    }, body);
  }
});
