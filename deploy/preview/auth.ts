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
import { awsMaybe } from "../aws/errors.ts";
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

/** The longest preview password accepted, in characters (a long passphrase fits). */
export const MAX_PREVIEW_PASSWORD = 256;

/**
 * Why a preview password cannot be used, or undefined when it can (pure). A reviewer types it
 * into the browser's Basic prompt, so it must be non-empty, of a sane length and free of control
 * characters (which no prompt can type, and which an `Authorization` header cannot carry).
 *
 * @param password the password read
 * @returns the reason, phrased to follow "the password"
 */
export function passwordProblem(password: string): string | undefined {
  if (password === "") return "is empty";
  if (password.length > MAX_PREVIEW_PASSWORD) {
    return `is ${password.length} characters, over the ${MAX_PREVIEW_PASSWORD} allowed`;
  }
  // deno-lint-ignore no-control-regex
  const control = /[\u0000-\u001f\u007f-\u009f]/.exec(password);
  if (control) {
    const at = control.index + 1;
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0");
    return `holds a control character (U+${code} at character ${at})`;
  }
  return undefined;
}

/**
 * The preview password, from where the config says, checked ({@linkcode passwordProblem}).
 * Read before the preview stack is touched, so a bad one creates nothing. Messages name
 * `previews.password` and where it points, never the password.
 *
 * @param value `previews.password`
 * @param environ the environment the CLI may read
 * @param secrets Secrets Manager in the site's region
 * @returns the password
 * @throws {DeployError} `preview_password_missing` for an unset variable, a missing secret, one
 *   without a string value, or an empty password; `preview_password_invalid` for a too long or
 *   control-character password
 */
export async function readPreviewPassword(
  value: string,
  environ: Readonly<Record<string, string | undefined>>,
  secrets: () => SecretsManagerClient,
): Promise<string> {
  const source = passwordSource(value);
  const where = "env" in source ? `\${${source.env}}` : `secret ${source.secret}`;
  let password: string | undefined;
  if ("env" in source) {
    password = environ[source.env];
    if (password === undefined) {
      throw new DeployError(
        "preview_password_missing",
        `previews.password names \${${source.env}}, which is not set`,
        { hint: `export ${source.env} (in CI: from the repository's secrets)` },
      );
    }
  } else {
    const out = await awsMaybe(
      { resource: `secret ${source.secret}`, action: "secretsmanager:GetSecretValue" },
      () => secrets().send(new GetSecretValueCommand({ SecretId: source.secret })),
    );
    if (out === undefined) {
      throw new DeployError(
        "preview_password_missing",
        `previews.password names secret ${source.secret}, which does not exist`,
        {
          hint: "create it in the site's region (aws secretsmanager create-secret --name " +
            `${source.secret} --secret-string …), or fix the name; nothing was created`,
        },
      );
    }
    if (out.SecretString === undefined) {
      throw new DeployError(
        "preview_password_missing",
        `previews.password names secret ${source.secret}, which holds no string value`,
        { hint: "store the password as the secret's plain-text value; nothing was created" },
      );
    }
    password = out.SecretString;
  }
  const problem = passwordProblem(password);
  if (problem !== undefined) {
    // An empty value is as good as none: the same code as an unset variable.
    throw new DeployError(
      password === "" ? "preview_password_missing" : "preview_password_invalid",
      `previews.password: the password in ${where} ${problem}`,
      {
        hint: `set a password of 1 to ${MAX_PREVIEW_PASSWORD} characters without control ` +
          "characters; nothing was created",
      },
    );
  }
  return password;
}
