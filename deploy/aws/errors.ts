/**
 * Turning AWS SDK failures into one-line {@linkcode DeployError}s that name the resource, the
 * action and the fix; and the small predicates the resource nodes use to tell "not found"
 * from a real failure.
 *
 * @module
 */
import { DeployError } from "../errors.ts";

/** What was being done when a call failed. */
export interface AwsCallContext {
  /** The resource, as the user knows it: `bucket production-blog-123456789012`. */
  readonly resource: string;
  /** The IAM action: `s3:CreateBucket`. */
  readonly action: string;
  /**
   * The call lists (no resource of its own): a listing never answers "not found", so a 404
   * means the endpoint lacks the operation (ministack's answer to the MicroVM image listing).
   */
  readonly listing?: boolean;
}

/** The AWS error code of an SDK error (`name`), or undefined for anything else. */
export function awsErrorCode(err: unknown): string | undefined {
  if (!(err instanceof Error)) return undefined;
  const code = (err as { Code?: unknown }).Code;
  return typeof code === "string" ? code : err.name;
}

/** The HTTP status of an SDK error, when it carries one. */
export function awsHttpStatus(err: unknown): number | undefined {
  const meta = (err as { $metadata?: { httpStatusCode?: unknown } } | null)?.$metadata;
  return typeof meta?.httpStatusCode === "number" ? meta.httpStatusCode : undefined;
}

/** Every service's spelling of "no such resource" (S3 objects and buckets, IAM, the rest). */
const NOT_FOUND_CODES = [
  "NotFound",
  "NoSuchKey",
  "NoSuchEntity",
  "ResourceNotFoundException",
  "NoSuchBucket",
];

/**
 * Every spelling of "this endpoint has no such operation": JSON protocols' unknown operation,
 * the Query protocol's unknown action, REST's Not Implemented (emulators answer these for what
 * they do not cover).
 */
const UNSUPPORTED_CODES = [
  "UnknownOperationException",
  "UnknownOperation",
  "InvalidAction",
  "NotImplemented",
  "NotImplementedException",
  "UnsupportedOperation",
  "UnsupportedOperationException",
];

/**
 * Whether `err` says the endpoint does not implement the operation at all (an unknown action, a
 * 501), as opposed to a failure of this one call: retrying cannot help.
 *
 * @param err what the SDK threw
 * @returns true for an unsupported operation
 */
export function isUnsupportedOperation(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  const code = awsErrorCode(err) ?? "";
  return UNSUPPORTED_CODES.includes(code) || awsHttpStatus(err) === 501 ||
    /\b(unknown [\w ]{0,20}(action|operation)|not (yet )?implemented)\b/i.test(err.message);
}

/**
 * Whether `err` says the resource does not exist (any service's spelling, or a bare 404).
 *
 * @param err what the SDK threw
 * @param codes extra service-specific codes meaning "missing"
 * @returns true for a not-found answer
 */
export function isNotFound(err: unknown, ...codes: string[]): boolean {
  const code = awsErrorCode(err);
  // Some endpoints answer an operation they lack with 404: that is not an absent resource.
  if (isUnsupportedOperation(err)) return false;
  return awsHttpStatus(err) === 404 ||
    NOT_FOUND_CODES.includes(code ?? "") || codes.includes(code ?? "");
}

const CREDENTIAL_CODES = [
  "CredentialsProviderError",
  "ExpiredToken",
  "ExpiredTokenException",
  "InvalidClientTokenId",
  "UnrecognizedClientException",
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "TokenRefreshRequired",
];
const DENIED_CODES = [
  "AccessDenied",
  "AccessDeniedException",
  "UnauthorizedOperation",
  "Forbidden",
];

/**
 * Maps anything an AWS call threw to a `DeployError` naming the resource and the fix:
 * missing or expired credentials, access denied (with the missing action), a bucket name taken
 * by another account, a certificate not yet issued, an operation the endpoint does not have
 * (`aws_operation_unsupported`, not worth a retry); anything else as `aws_request_failed`.
 * A `DeployError` passes through unchanged.
 *
 * @param err what was thrown
 * @param context the resource and IAM action
 * @returns the error to throw
 *
 * @example
 * ```ts
 * import { awsFailure } from "./errors.ts";
 *
 * const taken = Object.assign(new Error("taken"), { name: "BucketAlreadyExists" });
 * const err = awsFailure(taken, { resource: "bucket blog", action: "s3:CreateBucket" });
 * if (err.code !== "bucket_name_taken") throw new Error("a taken name says so");
 * // err.message: "bucket blog is taken by another AWS account"
 * ```
 */
export function awsFailure(err: unknown, context: AwsCallContext): DeployError {
  if (err instanceof DeployError) return err;
  const code = awsErrorCode(err) ?? "Error";
  const detail = err instanceof Error ? err.message.split("\n")[0] ?? "" : String(err);
  const { resource, action } = context;
  if (CREDENTIAL_CODES.includes(code) || /could not load credentials/i.test(detail)) {
    return new DeployError(
      "aws_credentials_missing",
      `no usable AWS credentials for ${action} on ${resource} (${code})`,
      {
        hint:
          "set AWS_PROFILE (after `aws sso login`) or AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, " +
          "and check they have not expired",
        cause: err,
      },
    );
  }
  if (
    DENIED_CODES.includes(code) || (awsHttpStatus(err) === 403 && code !== "BucketAlreadyExists")
  ) {
    // Under a customer-managed KMS key S3 refuses for the key's sake: say which grant is missing.
    const kms = /\bkms:[A-Za-z]+/.exec(detail)?.[0];
    return new DeployError("aws_access_denied", `access denied: ${action} on ${resource}`, {
      hint: kms
        ? `the bucket's KMS key does not allow this identity ${kms} (AWS: ${detail}); grant ` +
          "kms:GenerateDataKey and kms:Decrypt on the key to the identity running deploy"
        : `grant ${action} to the identity running deploy (see docs/deploy-infra.md)`,
      cause: err,
    });
  }
  if (code === "BucketAlreadyExists") {
    return new DeployError(
      "bucket_name_taken",
      `${resource} is taken by another AWS account`,
      {
        hint: "bucket names are global: change siteName or the environment name",
        cause: err,
      },
    );
  }
  if (code === "InvalidViewerCertificate") {
    return new DeployError(
      "certificate_pending_validation",
      `${resource}: the certificate is not issued yet (${action})`,
      {
        hint: "create the DNS validation CNAMEs `deploy bootstrap` printed, wait for ACM to " +
          "issue the certificate, then run `deploy bootstrap` again",
        cause: err,
      },
    );
  }
  if (isUnsupportedOperation(err) || (context.listing === true && awsHttpStatus(err) === 404)) {
    return new DeployError(
      "aws_operation_unsupported",
      `the AWS endpoint does not support ${action} (needed for ${resource}): ${code}: ${detail}`,
      {
        hint: "running the command again will not help: use an endpoint (or emulator version) " +
          `that implements ${action}, or a configuration that does not need it ` +
          "(docs/aws-conformance.md lists what the tested emulators lack)",
        cause: err,
      },
    );
  }
  return new DeployError(
    "aws_request_failed",
    `${action} on ${resource} failed: ${code}: ${detail}`,
    {
      hint: "run the command again (it resumes where it stopped); DEBUG=1 shows the full error",
      cause: err,
    },
  );
}

/**
 * Runs one AWS call, mapping its failure with {@linkcode awsFailure}.
 *
 * @param context the resource and IAM action
 * @param call the call
 * @returns the call's result
 * @throws {DeployError} the mapped failure
 */
export async function aws<T>(context: AwsCallContext, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    throw awsFailure(err, context);
  }
}

/**
 * Runs one AWS read that may find nothing: resolves `undefined` on a not-found answer.
 *
 * @param context the resource and IAM action
 * @param call the call
 * @param codes extra codes meaning "missing"
 * @returns the result, or undefined when missing
 * @throws {DeployError} any other failure, mapped
 */
export async function awsMaybe<T>(
  context: AwsCallContext,
  call: () => Promise<T>,
  ...codes: string[]
): Promise<T | undefined> {
  try {
    return await call();
  } catch (err) {
    if (isNotFound(err, ...codes)) return undefined;
    throw awsFailure(err, context);
  }
}
