/**
 * `build.secrets`: variables whose values are Secrets Manager secrets. Only the names travel
 * with the job (in the source zip, the job description, the state, the build record there is
 * never a value); the builder reads the values at build time — the local builder with the
 * deploying user's credentials, the MicroVM agent with the builder role — and hands them to the
 * install and build steps in their environment only.
 *
 * @module
 */
import { GetSecretValueCommand, type SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { DeployError } from "../errors.ts";
import { awsMaybe } from "../aws/errors.ts";

/** Reads one secret's string value; undefined when the secret does not exist. */
export type SecretReader = (name: string) => Promise<string | undefined>;

/**
 * A {@linkcode SecretReader} over Secrets Manager.
 *
 * @param client Secrets Manager in the site's region
 * @returns the reader
 */
export function secretsManagerReader(client: SecretsManagerClient): SecretReader {
  return async (name) => {
    const out = await awsMaybe(
      { resource: `secret ${name}`, action: "secretsmanager:GetSecretValue" },
      () => client.send(new GetSecretValueCommand({ SecretId: name })),
    );
    return out?.SecretString;
  };
}

/**
 * Reads every secret `build.secrets` names.
 *
 * @param secrets variable name → secret name
 * @param read how a secret is read
 * @returns variable name → value
 * @throws DeployError `build_secret_missing` naming each secret that is absent or has no string
 *   value
 *
 * @example
 * ```ts
 * import type { SecretReader } from "./build_secrets.ts";
 *
 * const env = (read: SecretReader) => readBuildSecrets({ CMS_TOKEN: "blog/cms" }, read);
 * ```
 */
export async function readBuildSecrets(
  secrets: Readonly<Record<string, string>> | undefined,
  read: SecretReader,
): Promise<Record<string, string>> {
  const entries = Object.entries(secrets ?? {});
  const values = await Promise.all(entries.map(([, name]) => read(name)));
  const missing = entries.filter((_, i) => !values[i]).map(([variable, name]) => ({
    variable,
    name,
  }));
  if (missing.length > 0) {
    throw new DeployError(
      "build_secret_missing",
      `build.secrets names ${
        missing.map((m) => `secret ${m.name} (for ${m.variable})`).join(", ")
      }, which does not exist or holds no string value`,
      {
        hint: "create it in the site's region (aws secretsmanager create-secret --name <name> " +
          "--secret-string …), or correct build.secrets",
      },
    );
  }
  return Object.fromEntries(entries.map(([variable], i) => [variable, values[i]!]));
}
