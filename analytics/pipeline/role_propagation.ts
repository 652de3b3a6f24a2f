/**
 * Waiting out IAM's eventual consistency: a role made a second ago is often refused by the
 * service that must assume it (Lambda, Firehose). The analytics nodes that name a new role
 * retry with this one policy.
 *
 * @module
 */
import { withRetry } from "@org/deploy/plugin";

/** Attempts while IAM has not yet propagated a new role: waits of 1, 2, 4, 8 and 16 s. */
const ROLE_ATTEMPTS = 6;

/**
 * Runs `call`, retrying while `propagating` says the failure is the role not yet assumable.
 *
 * @param sleep the run's injected wait
 * @param propagating whether an error means "the role cannot be assumed yet"
 * @param call the call naming the role
 * @returns what `call` returns
 * @throws the last error, or the first that is not about the role
 */
export function whileRolePropagates<T>(
  sleep: (ms: number) => Promise<void>,
  propagating: (err: unknown) => boolean,
  call: () => Promise<T>,
): Promise<T> {
  return withRetry(call, {
    isRetryable: propagating,
    attempts: ROLE_ATTEMPTS,
    baseDelayMs: 1000,
    maxDelayMs: 16_000,
    sleep,
  });
}
