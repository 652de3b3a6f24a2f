/**
 * The transform Lambda's entry point (bundled into the function's `index.mjs`): reads the salt
 * secret named by `SALT_SECRET_ID` from Secrets Manager and logs JSON lines to standard output,
 * which Lambda sends to the function's log group.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import process from "node:process";
import { GetSecretValueCommand, SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { createJsonLogger } from "@org/shared/logger";
import { createTransformHandler, SALT_SECRET_ENV } from "./lambda_handler.ts";

/** The handler Lambda invokes (`index.handler`). */
export const handler = createTransformHandler({
  async readSecret() {
    const id = process.env[SALT_SECRET_ENV];
    if (!id) throw new Error(`${SALT_SECRET_ENV} is not set`);
    const client = new SecretsManagerClient({});
    const out = await client.send(new GetSecretValueCommand({ SecretId: id }));
    if (out.SecretBinary) return new Uint8Array(out.SecretBinary);
    if (out.SecretString) return new Uint8Array(Buffer.from(out.SecretString, "base64"));
    throw new Error("the salt secret has no value");
  },
  log: createJsonLogger({ write: (line) => process.stdout.write(line + "\n") }),
});
