/**
 * Private previews (`previews.password`): HTTP Basic authentication on every preview, checked
 * by the preview router function. The password comes from a Secrets Manager secret (its name)
 * or an environment variable (`${VAR}`, e.g. a CI secret); the router's code holds only a salted
 * SHA-256 of the credentials, never the password.
 *
 * The user name is fixed ({@linkcode PREVIEW_USER}): the router compares the hash of the whole
 * Basic token (`base64("preview:<password>")`), which needs no base64 decoding at the edge.
 *
 * @module
 */
import { createHash } from "node:crypto";
import { GetSecretValueCommand, type SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { aws } from "../aws/errors.ts";
import { DeployError } from "../errors.ts";
import type { PreviewAuth } from "../infra/resource.ts";

/** The user name a reviewer types. */
export const PREVIEW_USER = "preview";

export type { PreviewAuth };

/**
 * The Basic token of the preview credentials (pure).
 *
 * @param password the password
 * @returns `base64("preview:<password>")` (UTF-8)
 */
export function basicToken(password: string): string {
  const bytes = new TextEncoder().encode(`${PREVIEW_USER}:${password}`);
  return btoa(String.fromCharCode(...bytes));
}

/**
 * The router's check for a password (pure).
 *
 * @param password the password
 * @param bucket the preview bucket (the salt)
 * @returns salt and hash
 */
export function previewAuth(password: string, bucket: string): PreviewAuth {
  const salt = `deploy-preview:${bucket}:`;
  const hash = createHash("sha256").update(salt + basicToken(password)).digest("hex");
  return { salt, hash };
}

/** Where `previews.password` says the password is (pure). */
export type PasswordSource = { readonly env: string } | { readonly secret: string };

/**
 * Reads `previews.password` (pure): `${VAR}` is an environment variable, anything else a secret.
 *
 * @param value the config value (already checked against its pattern)
 * @returns the source
 */
export function passwordSource(value: string): PasswordSource {
  const m = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(value);
  return m ? { env: m[1]! } : { secret: value };
}

/**
 * The preview password, from where the config says.
 *
 * @param value `previews.password`
 * @param environ the environment the CLI may read
 * @param secrets Secrets Manager in the site's region
 * @returns the password
 * @throws {DeployError} `preview_password_missing` for an unset variable or an empty secret
 */
export async function readPreviewPassword(
  value: string,
  environ: Readonly<Record<string, string | undefined>>,
  secrets: () => SecretsManagerClient,
): Promise<string> {
  const source = passwordSource(value);
  if ("env" in source) {
    const password = environ[source.env];
    if (!password) {
      throw new DeployError(
        "preview_password_missing",
        `previews.password names \${${source.env}}, which is not set`,
        { hint: `export ${source.env} (in CI: from the repository's secrets)` },
      );
    }
    return password;
  }
  const out = await aws(
    { resource: `secret ${source.secret}`, action: "secretsmanager:GetSecretValue" },
    () => secrets().send(new GetSecretValueCommand({ SecretId: source.secret })),
  );
  if (!out.SecretString) {
    throw new DeployError(
      "preview_password_missing",
      `secret ${source.secret} holds no string value`,
      { hint: "store the password as the secret's plain-text value" },
    );
  }
  return out.SecretString;
}
