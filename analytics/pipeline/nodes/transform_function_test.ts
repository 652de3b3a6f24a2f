import assert from "node:assert/strict";
import { testFacts } from "../_test_facts.ts";
import { transformFunctionDrift, transformFunctionSpec } from "./transform_function.ts";

const FACTS = testFacts();
const SPEC = transformFunctionSpec(FACTS, "arn:role", "arn:secret", "sha=");

Deno.test("transformFunctionSpec() runs the bundle on Node with the salt secret's ARN", () => {
  assert.deepEqual(SPEC, {
    name: "production-blog-analytics-transform",
    runtime: "nodejs22.x",
    handler: "index.handler",
    role: "arn:role",
    timeout: 60,
    memorySize: 256,
    environment: { SALT_SECRET_ID: "arn:secret" },
    codeSha256: "sha=",
  });
});

Deno.test("transformFunctionDrift() separates settings from code", () => {
  const live = {
    Runtime: "nodejs22.x" as const,
    Handler: "index.handler",
    Role: "arn:role",
    Timeout: 60,
    MemorySize: 256,
    Environment: { Variables: { SALT_SECRET_ID: "arn:secret" } },
    CodeSha256: "sha=",
  };
  assert.deepEqual(transformFunctionDrift(SPEC, live), { settings: [], code: false });
  assert.deepEqual(
    transformFunctionDrift(SPEC, {
      ...live,
      Timeout: 3,
      Environment: { Variables: {} },
      CodeSha256: "old=",
    }),
    { settings: ["timeout 3, want 60", "environment differs"], code: true },
  );
});
