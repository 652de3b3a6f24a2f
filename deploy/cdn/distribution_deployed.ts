/**
 * Waiting for a distribution to be `Deployed`. CloudFront applies a function publish, a response
 * headers policy update or a distribution update at its edge locations "as soon as the
 * distributions finish deploying" (Publish functions, CloudFront Developer Guide): the
 * distribution's `Status` goes `InProgress` → `Deployed`. The wait is the SDK's own waiter
 * (`waitUntilDistributionDeployed`, polling `GetDistribution`), bounded in time.
 *
 * @module
 */
import { type CloudFrontClient, waitUntilDistributionDeployed } from "@aws-sdk/client-cloudfront";
import { awsFailure } from "../aws/errors.ts";
import { interruptedError } from "../errors.ts";

/** How long, and how often, to ask CloudFront (seconds, as the SDK's waiters take them). */
export interface DeployedWait {
  /** Give up after this long. */
  readonly maxWaitSeconds: number;
  /** The first pause between two polls; the waiter doubles it (with jitter) up to `maxDelaySeconds`. */
  readonly minDelaySeconds: number;
  /** The longest pause between two polls. */
  readonly maxDelaySeconds: number;
}

/**
 * A deploy's wait for its rules: up to 20 minutes (CloudFront usually takes a few), polling
 * after 5 s, then less and less often, never less often than every 30 s: a CLI wants to go on
 * soon after `Deployed`, which the SDK's defaults for this waiter (60 s to 35 min) would not.
 */
export const RULES_DEPLOYED_WAIT: DeployedWait = {
  maxWaitSeconds: 20 * 60,
  minDelaySeconds: 5,
  maxDelaySeconds: 30,
};

/**
 * Waits until CloudFront reports the distribution `Deployed`.
 *
 * The SDK's waiter treats every error as "not yet" and polls on until its time is up; here an
 * error the client's own retries did not cure (access denied to a role bootstrapped before
 * the deploy needed `GetDistribution`, a deleted distribution) ends the wait at once instead.
 *
 * @param cf the CloudFront client (the site's, from the one client factory)
 * @param id the distribution id
 * @param wait the bounds
 * @param signal Ctrl-C: stops waiting
 * @returns `deployed`, or `timed out` when `wait.maxWaitSeconds` passed first
 * @throws DeployError from `GetDistribution` (naming the action); `interrupted`
 *
 * @example
 * ```ts
 * import type { CloudFrontClient } from "@aws-sdk/client-cloudfront";
 * import { RULES_DEPLOYED_WAIT, waitDistributionDeployed } from "./distribution_deployed.ts";
 *
 * async function rulesLive(cf: CloudFrontClient, id: string): Promise<boolean> {
 *   return await waitDistributionDeployed(cf, id, RULES_DEPLOYED_WAIT) === "deployed";
 * }
 * ```
 */
export async function waitDistributionDeployed(
  cf: CloudFrontClient,
  id: string,
  wait: DeployedWait,
  signal?: AbortSignal,
): Promise<"deployed" | "timed out"> {
  const failed = new AbortController();
  let failure: unknown;
  // The waiter's client, with every error recorded and ending the wait (see above).
  const client = Object.create(cf) as CloudFrontClient;
  client.send =
    ((command: Parameters<CloudFrontClient["send"]>[0]) =>
      cf.send(command).catch((err: unknown) => {
        failure = err;
        failed.abort();
        throw err;
      })) as CloudFrontClient["send"];
  try {
    await waitUntilDistributionDeployed({
      client,
      maxWaitTime: wait.maxWaitSeconds,
      minDelay: wait.minDelaySeconds,
      maxDelay: wait.maxDelaySeconds,
      abortSignal: signal ? AbortSignal.any([failed.signal, signal]) : failed.signal,
    }, { Id: id });
    return "deployed";
  } catch (err) {
    if (failure !== undefined) {
      throw awsFailure(failure, {
        resource: `distribution ${id}`,
        action: "cloudfront:GetDistribution",
      });
    }
    if (signal?.aborted) throw interruptedError(`the wait for distribution ${id} to deploy`);
    if (err instanceof Error && err.name === "TimeoutError") return "timed out";
    throw err;
  }
}
