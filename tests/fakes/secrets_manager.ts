/**
 * A loopback fake of AWS Secrets Manager (JSON 1.1, `X-Amz-Target: secretsmanager.*`) with the
 * calls the deploy CLI makes: create (a string or binary value, with tags), get, put, describe,
 * tag and delete.
 *
 * @module
 */

import { type AwsFake, FakeAwsError, startFakeServer } from "./server.ts";
import { jsonRpcService, optionalString, requireString } from "./json_rpc.ts";

/** A secret held by the fake. */
export interface FakeSecret {
  readonly name: string;
  readonly arn: string;
  /** The current value (`AWSCURRENT`); `""` for a binary secret. */
  value: string;
  /** The current binary value, base64 as on the wire, for a secret made with `SecretBinary`. */
  binary?: string;
  /** Increments on every put: each value is a new version. */
  versions: number;
  readonly tags: Record<string, string>;
  readonly createdAt: Date;
  lastChangedAt: Date;
}

/** The fake's state. */
export interface SecretsManagerFakeState {
  /** Secrets by name. */
  readonly secrets: Map<string, FakeSecret>;
}

/** Options for {@link startSecretsManagerFake}. */
export interface SecretsManagerFakeOptions {
  /** Account id in ARNs (default `123456789012`). */
  accountId?: string;
  /** Region in ARNs (default `us-east-1`). */
  region?: string;
  /** Clock in ms (default `Date.now`). */
  now?: () => number;
}

/**
 * Starts the Secrets Manager fake on a free loopback port.
 *
 * @param options account, region and clock
 * @returns the fake; `await using` stops it
 * @example
 * ```ts
 * import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
 * import { testAwsConfig } from "../support/s3.ts";
 *
 * await using sm = startSecretsManagerFake();
 * const client = new SecretsManagerClient({ ...testAwsConfig, endpoint: sm.endpoint });
 * ```
 */
export function startSecretsManagerFake(
  options: SecretsManagerFakeOptions = {},
): AwsFake<SecretsManagerFakeState> {
  const account = options.accountId ?? "123456789012";
  const region = options.region ?? "us-east-1";
  const now = () => new Date((options.now ?? Date.now)());
  const state: SecretsManagerFakeState = { secrets: new Map() };
  const find = (input: Record<string, unknown>): FakeSecret => {
    const id = requireString(input, "SecretId");
    const secret = state.secrets.get(id) ?? [...state.secrets.values()].find((s) => s.arn === id);
    if (!secret) {
      throw new FakeAwsError(
        "ResourceNotFoundException",
        400,
        "Secrets Manager can't find the specified secret.",
      );
    }
    return secret;
  };
  const seconds = (d: Date) => d.getTime() / 1000;
  const definition = jsonRpcService("secretsmanager", "secretsmanager", {
    CreateSecret(input) {
      const name = requireString(input, "Name");
      if (!/^[\w/+=.@-]{1,512}$/.test(name)) {
        throw new FakeAwsError("ValidationException", 400, `invalid name ${name}`);
      }
      if (state.secrets.has(name)) {
        throw new FakeAwsError("ResourceExistsException", 400, `${name} already exists`);
      }
      const tags = Object.fromEntries(
        ((input.Tags ?? []) as { Key: string; Value: string }[]).map((t) => [t.Key, t.Value]),
      );
      const arn = `arn:aws:secretsmanager:${region}:${account}:secret:${name}-${
        crypto.randomUUID().slice(0, 6)
      }`;
      const at = now();
      const binary = optionalString(input, "SecretBinary");
      state.secrets.set(name, {
        name,
        arn,
        value: binary === undefined ? requireString(input, "SecretString") : "",
        ...(binary === undefined ? {} : { binary }),
        versions: 1,
        tags,
        createdAt: at,
        lastChangedAt: at,
      });
      return { ARN: arn, Name: name, VersionId: "v1" };
    },
    GetSecretValue(input) {
      const secret = find(input);
      return {
        ARN: secret.arn,
        Name: secret.name,
        ...(secret.binary === undefined
          ? { SecretString: secret.value }
          : { SecretBinary: secret.binary }),
        VersionId: `v${secret.versions}`,
        VersionStages: ["AWSCURRENT"],
        CreatedDate: seconds(secret.lastChangedAt),
      };
    },
    PutSecretValue(input) {
      const secret = find(input);
      secret.value = requireString(input, "SecretString");
      secret.versions += 1;
      secret.lastChangedAt = now();
      return { ARN: secret.arn, Name: secret.name, VersionId: `v${secret.versions}` };
    },
    DescribeSecret(input) {
      const secret = find(input);
      return {
        ARN: secret.arn,
        Name: secret.name,
        CreatedDate: seconds(secret.createdAt),
        LastChangedDate: seconds(secret.lastChangedAt),
        Tags: Object.entries(secret.tags).map(([Key, Value]) => ({ Key, Value })),
      };
    },
    TagResource(input) {
      const secret = find(input);
      for (const t of (input.Tags ?? []) as { Key: string; Value: string }[]) {
        secret.tags[t.Key] = t.Value;
      }
      return {};
    },
    DeleteSecret(input) {
      const secret = find(input);
      if (optionalString(input, "RecoveryWindowInDays") !== undefined) {
        throw new FakeAwsError("InvalidParameterException", 400, "not faked");
      }
      state.secrets.delete(secret.name);
      return { ARN: secret.arn, Name: secret.name, DeletionDate: seconds(now()) };
    },
  });
  return startFakeServer(definition, state).fake;
}
