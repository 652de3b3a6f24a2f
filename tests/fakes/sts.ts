/**
 * A loopback fake of AWS STS (Query protocol) with just `GetCallerIdentity`.
 *
 * @module
 */

import { type AwsFake, startFakeServer } from "./server.ts";
import { queryService } from "./query.ts";

/** Options for {@link startStsFake}. */
export interface StsFakeOptions {
  /** The account id `GetCallerIdentity` reports (default `123456789012`). */
  accountId?: string;
}

/** The STS fake's state: the identity it reports, mutable by tests. */
export interface StsFakeState {
  /** The account id reported. */
  accountId: string;
  /** The caller ARN reported (default: an IAM user `deployer` in the account). */
  arn: string;
  /** The caller's unique id reported. */
  userId: string;
}

/**
 * Starts the STS fake on a free loopback port.
 *
 * @param options the identity to report
 * @returns the fake; `await using` stops it
 * @example
 * ```ts
 * import { STSClient } from "@aws-sdk/client-sts";
 * import { testAwsConfig } from "../support/s3.ts";
 *
 * await using sts = startStsFake({ accountId: "111122223333" });
 * const sdk = new STSClient({ ...testAwsConfig, endpoint: sts.endpoint });
 * ```
 */
export function startStsFake(options: StsFakeOptions = {}): AwsFake<StsFakeState> {
  const accountId = options.accountId ?? "123456789012";
  const state: StsFakeState = {
    accountId,
    arn: `arn:aws:iam::${accountId}:user/deployer`,
    userId: "AIDAFAKEUSER00000001",
  };
  const definition = queryService("sts", "https://sts.amazonaws.com/doc/2011-06-15/", {
    GetCallerIdentity: () => ({ Arn: state.arn, UserId: state.userId, Account: state.accountId }),
  });
  return startFakeServer(definition, state).fake;
}
