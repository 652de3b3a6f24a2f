import assert from "node:assert/strict";
import type { S3Client } from "@aws-sdk/client-s3";
import { DeployError } from "../errors.ts";
import { parseEnvironmentState, readEnvironmentState } from "./build_context.ts";

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

const store = (body: string | undefined) => ({ s3: s3Returning(body), bucket: "b" });

Deno.test("readEnvironmentState() reads the distribution and builder fields", async () => {
  const view = await readEnvironmentState(
    store('{"distributionId":"E1","builder":{"baseImageArn":"arn:base","buildRoleArn":"arn:r"}}'),
    "production",
  );
  assert.equal(view.distributionId, "E1");
  assert.deepEqual(view.builder, { baseImageArn: "arn:base", buildRoleArn: "arn:r" });
});

Deno.test("readEnvironmentState() is empty when there is no state file yet", async () => {
  assert.deepEqual(await readEnvironmentState(store(undefined), "production"), {});
});

Deno.test("readEnvironmentState() rejects a corrupt state file with state_invalid naming its key", async () => {
  for (const body of ["{ not json", "[1, 2]", "null", '"text"']) {
    await assert.rejects(readEnvironmentState(store(body), "staging"), (err) => {
      assert.ok(err instanceof DeployError);
      assert.equal(err.code, "state_invalid");
      assert.match(err.message, /^s3:\/\/b\/state\/staging\.json is not/);
      assert.match(err.hint, /deploy bootstrap/);
      return true;
    }, body);
  }
});

Deno.test("parseEnvironmentState() returns the object of a valid file", () => {
  assert.deepEqual(parseEnvironmentState('{"a":1}', "s3://b/k"), { a: 1 });
});
