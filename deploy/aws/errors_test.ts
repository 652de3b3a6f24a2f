import assert from "node:assert/strict";
import { DeployError } from "../errors.ts";
import { awsFailure, isNotFound, isUnsupportedOperation } from "./errors.ts";

function sdkError(name: string, status?: number, message = name): Error {
  const err = new Error(message);
  err.name = name;
  if (status !== undefined) Object.assign(err, { $metadata: { httpStatusCode: status } });
  return err;
}

const AT = { resource: "bucket production-blog-123456789012", action: "s3:CreateBucket" };

Deno.test("awsFailure() turns missing credentials into aws_credentials_missing naming the action", () => {
  const err = awsFailure(
    sdkError(
      "CredentialsProviderError",
      undefined,
      "Could not load credentials from any providers",
    ),
    AT,
  );
  assert.equal(err.code, "aws_credentials_missing");
  assert.match(err.message, /s3:CreateBucket on bucket production-blog-123456789012/);
  assert.match(err.hint, /AWS_PROFILE/);
});

Deno.test("awsFailure() names the denied action and says to grant it", () => {
  const err = awsFailure(sdkError("AccessDenied", 403), AT);
  assert.equal(err.code, "aws_access_denied");
  assert.equal(
    err.message,
    "access denied: s3:CreateBucket on bucket production-blog-123456789012",
  );
  assert.equal(
    err.hint,
    "grant s3:CreateBucket to the identity running deploy (see docs/deploy-infra.md)",
  );
});

Deno.test("awsFailure() reports a bucket name taken by another account", () => {
  assert.equal(awsFailure(sdkError("BucketAlreadyExists", 409), AT).code, "bucket_name_taken");
});

Deno.test("awsFailure() reports an unissued certificate as pending validation", () => {
  const err = awsFailure(sdkError("InvalidViewerCertificate", 400), {
    resource: "distribution E1",
    action: "cloudfront:UpdateDistribution",
  });
  assert.equal(err.code, "certificate_pending_validation");
  assert.match(err.hint, /DNS validation CNAMEs/);
});

Deno.test("awsFailure() keeps AWS's code for anything else, on one line", () => {
  const err = awsFailure(sdkError("ThrottlingException", 400, "Rate exceeded\nmore"), AT);
  assert.equal(err.code, "aws_request_failed");
  assert.equal(
    err.message,
    "s3:CreateBucket on bucket production-blog-123456789012 failed: ThrottlingException: Rate exceeded",
  );
  const own = new DeployError("state_missing", "x");
  assert.equal(awsFailure(own, AT), own);
});

Deno.test("isNotFound() accepts every service's spelling and extra codes", () => {
  assert.ok(isNotFound(sdkError("NoSuchEntity")));
  assert.ok(isNotFound(sdkError("Whatever", 404)));
  assert.ok(isNotFound(sdkError("NoSuchBucketPolicy"), "NoSuchBucketPolicy"));
  assert.ok(!isNotFound(sdkError("AccessDenied", 403)));
});

Deno.test("awsFailure() points a KMS refusal at the key, quoting AWS", () => {
  const message = "User: arn:aws:sts::1:assumed-role/gh/x is not authorized to perform: " +
    "kms:GenerateDataKey on resource: arn:aws:kms:eu-west-1:1:key/abc";
  const err = awsFailure(sdkError("AccessDenied", 403, message), {
    resource: "s3://b/site/a.css",
    action: "s3:PutObject",
  });
  assert.equal(err.code, "aws_access_denied");
  assert.equal(err.message, "access denied: s3:PutObject on s3://b/site/a.css");
  assert.match(err.hint, /KMS key does not allow this identity kms:GenerateDataKey/);
  assert.match(err.hint, /grant kms:GenerateDataKey and kms:Decrypt/);
});

Deno.test("awsFailure() names the operation an endpoint lacks and does not say to run again", () => {
  const glue = { resource: "Glue catalog s3tablescatalog", action: "glue:GetCatalog" };
  for (
    const lacking of [
      sdkError("InvalidAction", 400, "Unknown Glue action: GetCatalog"),
      sdkError("UnknownOperationException", 404, "GET /managed-microvm-images"),
      sdkError("Error", 501, "Not Implemented"),
      sdkError("InternalFailure", 400, "The action ListThings is not implemented"),
    ]
  ) {
    const err = awsFailure(lacking, glue);
    assert.equal(err.code, "aws_operation_unsupported", lacking.message);
    assert.match(err.message, /^the AWS endpoint does not support glue:GetCatalog \(needed for /);
    assert.match(err.hint, /running the command again will not help/);
    assert.doesNotMatch(err.hint, /resumes/);
  }
});

Deno.test("awsFailure() reads a 404 to a listing as the endpoint lacking it", () => {
  const listing = { resource: "the managed MicroVM images", action: "lambda:X", listing: true };
  const err = awsFailure(sdkError("ResourceNotFoundException", 404, "Function not found"), listing);
  assert.equal(err.code, "aws_operation_unsupported");
});

Deno.test("isUnsupportedOperation() tells a missing operation from a missing resource", () => {
  assert.ok(isUnsupportedOperation(sdkError("UnknownOperationException", 404)));
  assert.ok(!isNotFound(sdkError("UnknownOperationException", 404)));
  assert.ok(!isUnsupportedOperation(sdkError("ResourceNotFoundException", 404, "no such image")));
  assert.ok(!isUnsupportedOperation(sdkError("ThrottlingException", 400, "Rate exceeded")));
});
