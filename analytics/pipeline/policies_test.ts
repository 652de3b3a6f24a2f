import assert from "node:assert/strict";
import { testFacts } from "./_test_facts.ts";
import { streamPolicy, transformPolicy } from "./policies.ts";

const NAMES = testFacts().names;
const SECRET =
  "arn:aws:secretsmanager:us-east-1:123456789012:secret:blog/production/analytics-salt-AbC123";
const FN = "arn:aws:lambda:us-east-1:123456789012:function:production-blog-analytics-transform";

Deno.test("transformPolicy() allows its own log group and reading the salt, nothing else", () => {
  const group =
    "arn:aws:logs:us-east-1:123456789012:log-group:/aws/lambda/production-blog-analytics-transform";
  assert.deepEqual(transformPolicy(NAMES, "123456789012", SECRET).Statement, [
    {
      Sid: "OwnLogGroup",
      Effect: "Allow",
      Action: ["logs:CreateLogStream", "logs:PutLogEvents"],
      Resource: [group, `${group}:*`],
    },
    { Sid: "ReadSalt", Effect: "Allow", Action: "secretsmanager:GetSecretValue", Resource: SECRET },
  ]);
});

Deno.test("streamPolicy() scopes every grant to this pipeline's resources", () => {
  const statements = streamPolicy(NAMES, "123456789012", FN).Statement;
  const resources = statements.flatMap((s) => [s.Resource ?? []].flat());
  // Only Lake Formation's data access takes no resource; everything else names ours.
  assert.deepEqual(statements.filter((s) => s.Resource === "*").map((s) => s.Action), [
    "lakeformation:GetDataAccess",
  ]);
  for (const arn of resources.filter((x) => x !== "*")) {
    assert.match(
      arn,
      /production-blog-analytics|s3tablescatalog|:catalog$/,
      `${arn} is not one of the pipeline's resources`,
    );
  }
  const actions = statements.flatMap((s) => [s.Action].flat());
  assert.ok(actions.includes("lambda:InvokeFunction"));
  assert.ok(actions.includes("s3:PutObject"));
  assert.ok(!actions.some((a) => a.endsWith(":*")), "no wildcard actions");
});
