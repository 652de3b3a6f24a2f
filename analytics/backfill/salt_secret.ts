/**
 * Reading the salt secret for the backfill: the same 32 bytes the transform Lambda reads, so a
 * backfilled row gets the visitor key the pipeline would have given it that day.
 *
 * @module
 */
import { GetSecretValueCommand, type SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { aws, DeployError } from "@org/deploy/plugin";
import { SALT_SECRET_BYTES } from "../transform/visitor_key.ts";

/**
 * Reads the salt secret's bytes (binary, or base64 text as the Lambda also accepts).
 *
 * @param secrets a Secrets Manager client in us-east-1
 * @param secretId the secret's name (`analytics.saltSecretName`)
 * @returns 32 bytes
 * @throws {DeployError} `state_invalid` when the secret is not 32 bytes; mapped AWS failures
 */
export async function readSaltSecret(
  secrets: SecretsManagerClient,
  secretId: string,
): Promise<Uint8Array> {
  const out = await aws(
    { action: "secretsmanager:GetSecretValue", resource: `secret ${secretId} (us-east-1)` },
    () => secrets.send(new GetSecretValueCommand({ SecretId: secretId })),
  );
  const bytes = out.SecretBinary
    ? new Uint8Array(out.SecretBinary)
    : out.SecretString
    ? Uint8Array.from(atob(out.SecretString), (c) => c.charCodeAt(0))
    : new Uint8Array();
  if (bytes.length !== SALT_SECRET_BYTES) {
    // Never hash with a wrong salt: the keys would not match the pipeline's.
    throw new DeployError(
      "state_invalid",
      `the salt secret ${secretId} holds ${bytes.length} bytes, not ${SALT_SECRET_BYTES}`,
      { hint: "the secret is created by `deploy analytics bootstrap` and must not be edited" },
    );
  }
  return bytes;
}
