/**
 * The `pds.secretName` secret: the site's OAuth client key, the account it logged in as and the
 * OAuth session, as one JSON document in AWS Secrets Manager. Every change is read-modify-write
 * (keygen keeps nothing of an old session; a refresh keeps the client key), and the first write
 * creates the secret with the stack's tags.
 *
 * @module
 */
import {
  CreateSecretCommand,
  DeleteSecretCommand,
  DescribeSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  type SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import { DeployError } from "../errors.ts";
import { aws, awsMaybe } from "../aws/errors.ts";
import { withRetry } from "../aws/retry.ts";
import { tagList } from "../aws/tags.ts";
import { isPrivateEcJwk, type PrivateEcJwk } from "./client_key.ts";

/** A DPoP-bound OAuth session with the account's PDS. */
export interface PdsSession {
  /** The authorization server's issuer identifier. */
  readonly issuer: string;
  /** The PDS origin (the resource server the tokens are for). */
  readonly pds: string;
  readonly accessToken: string;
  /** Single-use: every refresh returns a new one, which must be stored before anything else. */
  readonly refreshToken: string;
  /** When the access token expires (ISO 8601). */
  readonly expiresAt: string;
  readonly scope: string;
  /** The key the tokens are bound to (DPoP): a new session gets a new one. */
  readonly dpopKey: PrivateEcJwk;
}

/** The secret's JSON value. */
export interface PdsSecret {
  /** The OAuth client's private key (`deploy pds keygen`). */
  readonly clientKey?: PrivateEcJwk;
  /** The account's DID (`deploy pds login`). */
  readonly did?: string;
  readonly session?: PdsSession;
}

/** What `deploy pds secret status` shows: names and dates, never a value. */
export interface SecretStatus {
  readonly name: string;
  readonly arn: string;
  /** Last change (ISO 8601), when AWS reports one. */
  readonly lastChanged?: string;
  readonly clientKey: boolean;
  /** The client key's `kid` (public: it is in jwks.json). */
  readonly kid?: string;
  readonly did?: string;
  readonly session: boolean;
}

/** Reads and changes the secret. */
export interface SecretStore {
  /** The secret's name. */
  readonly name: string;
  /**
   * The current value; `null` when the secret does not exist.
   * @throws {DeployError} secret_invalid when the value is not this tool's JSON
   */
  read(): Promise<PdsSecret | null>;
  /**
   * Read-modify-write: applies `change` to the current value (`{}` when absent) and stores the
   * result, creating the secret with the stack's tags when it is missing. Transient AWS
   * failures are retried, so a rotated refresh token is not lost to a throttled write.
   *
   * @returns the stored value
   */
  update(change: (current: PdsSecret) => PdsSecret): Promise<PdsSecret>;
  /** Name, ARN, last change and which parts are present; `null` when missing. */
  status(): Promise<SecretStatus | null>;
  /** Deletes the secret at once (no recovery window); false when it did not exist. */
  delete(): Promise<boolean>;
}

/** Options of {@linkcode secretsManagerStore}. */
export interface SecretStoreOptions {
  /** Tags for a newly created secret (the stack's `app` and `environment`). */
  readonly tags: Readonly<Record<string, string>>;
  /** Waits between retries (injected so tests do not sleep). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** Attempts per write (default 5). */
  readonly attempts?: number;
}

/**
 * The secret in AWS Secrets Manager.
 *
 * @param client Secrets Manager in the site's primary region
 * @param name `pds.secretName`
 * @param options tags and retry settings
 * @returns the store
 */
export function secretsManagerStore(
  client: SecretsManagerClient,
  name: string,
  options: SecretStoreOptions,
): SecretStore {
  const resource = `secret ${name}`;
  const retry = { attempts: options.attempts ?? 5, ...(options.sleep && { sleep: options.sleep }) };
  const read = async (): Promise<PdsSecret | null> => {
    const out = await awsMaybe(
      { resource, action: "secretsmanager:GetSecretValue" },
      () => withRetry(() => client.send(new GetSecretValueCommand({ SecretId: name })), retry),
    );
    return out === undefined ? null : parseSecret(name, out.SecretString);
  };
  return {
    name,
    read,
    async update(change) {
      const current = await read();
      const next = change(current ?? {});
      const SecretString = JSON.stringify(next);
      if (current === null) {
        const created = await awsMaybe(
          { resource, action: "secretsmanager:CreateSecret" },
          () =>
            withRetry(() =>
              client.send(
                new CreateSecretCommand({
                  Name: name,
                  SecretString,
                  Description: "deploy pds: OAuth client key and session (AT Protocol)",
                  Tags: tagList(options.tags),
                }),
              ), retry),
          // Created by a concurrent run between our read and our create: write over it below.
          "ResourceExistsException",
        );
        if (created !== undefined) return next;
      }
      await aws(
        { resource, action: "secretsmanager:PutSecretValue" },
        () =>
          withRetry(
            () => client.send(new PutSecretValueCommand({ SecretId: name, SecretString })),
            retry,
          ),
      );
      return next;
    },
    async status() {
      const described = await awsMaybe(
        { resource, action: "secretsmanager:DescribeSecret" },
        () => client.send(new DescribeSecretCommand({ SecretId: name })),
      );
      if (described === undefined) return null;
      const value = await read();
      const changed = described.LastChangedDate ?? described.CreatedDate;
      return {
        name,
        arn: described.ARN ?? "",
        ...(changed && { lastChanged: changed.toISOString() }),
        clientKey: value?.clientKey !== undefined,
        ...(value?.clientKey && { kid: value.clientKey.kid }),
        ...(value?.did && { did: value.did }),
        session: value?.session !== undefined,
      };
    },
    async delete() {
      const out = await awsMaybe(
        { resource, action: "secretsmanager:DeleteSecret" },
        () =>
          client.send(
            new DeleteSecretCommand({ SecretId: name, ForceDeleteWithoutRecovery: true }),
          ),
      );
      return out !== undefined;
    },
  };
}

/**
 * Parses the secret's JSON value, keeping only what this tool wrote.
 *
 * @param name the secret's name (for the error)
 * @param text the secret string
 * @returns the value
 * @throws {DeployError} secret_invalid, naming the secret but never quoting its value
 */
export function parseSecret(name: string, text: string | undefined): PdsSecret {
  let value: unknown;
  try {
    value = JSON.parse(text ?? "");
  } catch {
    throw secretInvalid(name, "it is not JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw secretInvalid(name, "it is not a JSON object");
  }
  const v = value as Record<string, unknown>;
  if (v.clientKey !== undefined && !isPrivateEcJwk(v.clientKey)) {
    throw secretInvalid(name, "its clientKey is not an ES256 private key");
  }
  if (v.did !== undefined && (typeof v.did !== "string" || !v.did.startsWith("did:"))) {
    throw secretInvalid(name, "its did is not a DID");
  }
  if (v.session !== undefined && !isSession(v.session)) {
    throw secretInvalid(name, "its session is incomplete");
  }
  return {
    ...(v.clientKey !== undefined && { clientKey: v.clientKey as PrivateEcJwk }),
    ...(v.did !== undefined && { did: v.did as string }),
    ...(v.session !== undefined && { session: v.session as PdsSession }),
  };
}

function isSession(value: unknown): value is PdsSession {
  if (typeof value !== "object" || value === null) return false;
  const s = value as Record<string, unknown>;
  return ["issuer", "pds", "accessToken", "refreshToken", "expiresAt", "scope"].every((k) =>
    typeof s[k] === "string"
  ) && isPrivateEcJwk(s.dpopKey);
}

function secretInvalid(name: string, why: string): DeployError {
  return new DeployError("secret_invalid", `secret ${name} cannot be used: ${why}`, {
    hint: "run `deploy pds keygen` to start over with a new key (then deploy and log in again)",
  });
}
