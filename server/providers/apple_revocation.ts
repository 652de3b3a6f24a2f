/**
 * Revoking a deleted user's Sign in with Apple tokens (App Store Review Guideline 5.1.1(v)):
 * the refresh token of each code exchange is kept, sealed under `keys.encryption_key`; a
 * deletion moves it into the store's durable queue; a serving process works the queue on its
 * scheduler, calling Apple's `/auth/revoke`, and retries failures with exponential backoff.
 * The deletion itself never waits for Apple.
 *
 * Without `keys.encryption_key` no token is kept (a plain refresh token in the store would be
 * a credential for the user's Apple account in every backup): the service warns at startup.
 *
 * @module
 */
import { Buffer } from "node:buffer";
import type { DepsWith, ServiceDeps } from "../deps.ts";
import { createKeySealer, type KeySealer } from "../keys/key_seal.ts";
import { type ScheduledTask, scheduleExclusive, type Scheduler } from "../scheduler.ts";
import type { KeptProviderToken, RevocationJob } from "../store/provider_tokens.ts";
import { appleProviders, type ProviderClient } from "./provider_client.ts";

/** How often a serving process looks for due revocations. */
export const REVOKE_INTERVAL_MS = 15_000;
/** Wait after the first failed attempt; doubled after each further failure. */
export const REVOKE_BACKOFF_BASE_MS = 30_000;
/** Longest wait between two attempts. */
export const REVOKE_BACKOFF_MAX_MS = 6 * 3_600_000;
/** Attempts after which a revocation is given up (about 40 hours of retrying). */
export const REVOKE_MAX_ATTEMPTS = 16;
/** How long one instance holds a job it attempts; far beyond a provider timeout. */
export const REVOKE_LEASE_MS = 120_000;
/** Jobs one run attempts. */
export const REVOKE_BATCH = 20;

/**
 * The wait before the next attempt after `failures` failed ones (1 → 30 s, 2 → 60 s, …, at
 * most {@linkcode REVOKE_BACKOFF_MAX_MS}).
 */
export function revokeBackoff(failures: number): number {
  return Math.min(REVOKE_BACKOFF_BASE_MS * 2 ** Math.max(0, failures - 1), REVOKE_BACKOFF_MAX_MS);
}

/** The sealer of kept provider tokens: `keys.encryption_key`'s, or none when it is unset. */
export function providerTokenSealer(
  config: Pick<ServiceDeps["config"], "keys">,
): KeySealer | undefined {
  const secret = config.keys.encryption_key;
  return secret === undefined ? undefined : createKeySealer(secret);
}

/** Associated data binding a sealed token to its user and provider: it cannot be moved. */
const boundTo = (userId: string, provider: string) => `provider-token:${provider}:${userId}`;

/**
 * Seals `token` for its user and provider.
 *
 * @returns the record to keep
 */
export function sealProviderToken(
  sealer: KeySealer,
  userId: string,
  provider: string,
  token: string,
): KeptProviderToken {
  const b64 = Buffer.from(token, "utf8").toString("base64");
  return { user_id: userId, provider, sealed: sealer.seal(b64, boundTo(userId, provider)) };
}

/** The token of a kept record, or `undefined` when `sealer` does not open it. */
export function openProviderToken(
  sealer: KeySealer,
  kept: KeptProviderToken,
): string | undefined {
  const b64 = sealer.open(kept.sealed, boundTo(kept.user_id, kept.provider));
  return b64 === undefined ? undefined : Buffer.from(b64, "base64").toString("utf8");
}

/**
 * Keeps the refresh token a Sign in with Apple code exchange returned, sealed; nothing for
 * another provider, without a token, or without `keys.encryption_key`.
 */
export async function keepAppleRefreshToken(
  deps: DepsWith<"config", "providerTokens">,
  provider: ProviderClient,
  userId: string,
  token: string | undefined,
): Promise<void> {
  if (token === undefined || provider.config.client_secret.kind !== "apple") return;
  const sealer = providerTokenSealer(deps.config);
  if (sealer === undefined) return;
  await deps.store.providerTokens.keep(
    sealProviderToken(sealer, userId, provider.config.name, token),
  );
}

/** What working the queue depends on. */
export type RevocationDeps = DepsWith<
  "config" | "providers" | "clock" | "log" | "metrics",
  "providerTokens"
>;

/** What one run of {@linkcode processRevocations} did. */
export interface RevocationRun {
  readonly revoked: number;
  readonly failed: number;
  readonly abandoned: number;
  /** Jobs left in the queue after the run. */
  readonly pending: number;
}

/**
 * One run over the queue: leases the due jobs (so no other instance sends the same revoke),
 * revokes each at its provider, and removes it, or puts it back with the next backoff (after
 * {@linkcode REVOKE_MAX_ATTEMPTS} failures it is dropped and logged as an error).
 *
 * @returns the counts, also recorded in the metrics
 */
export async function processRevocations(deps: RevocationDeps): Promise<RevocationRun> {
  const { store, clock, log, metrics } = deps;
  const now = clock.now();
  const jobs = await store.providerTokens.lease(now, now + REVOKE_LEASE_MS, REVOKE_BATCH);
  const sealer = providerTokenSealer(deps.config);
  let revoked = 0, failed = 0, abandoned = 0;
  for (const job of jobs) {
    const error = await attempt(deps, sealer, job);
    if (error === undefined) {
      await store.providerTokens.done(job.user_id);
      metrics.providerRevocation("revoked");
      log.info("provider token revoked", {
        provider: job.provider,
        user: job.user_id,
        attempts: job.attempts + 1,
      });
      revoked++;
      continue;
    }
    const failures = job.attempts + 1;
    if (failures >= REVOKE_MAX_ATTEMPTS) {
      await store.providerTokens.done(job.user_id);
      metrics.providerRevocation("abandoned");
      log.error("provider token revocation given up", {
        provider: job.provider,
        user: job.user_id,
        attempts: failures,
        error,
      });
      abandoned++;
      continue;
    }
    const nextAt = clock.now() + revokeBackoff(failures);
    await store.providerTokens.retry(job.user_id, nextAt, error);
    metrics.providerRevocation("failed");
    log.warn("provider token revocation failed; will retry", {
      provider: job.provider,
      user: job.user_id,
      attempts: failures,
      next_at: new Date(nextAt).toISOString(),
      error,
    });
    failed++;
  }
  const pending = await store.providerTokens.pending();
  metrics.providerRevocationsPending(pending);
  return { revoked, failed, abandoned, pending };
}

/** One attempt; `undefined` on success, else why it failed (no token material). */
async function attempt(
  deps: RevocationDeps,
  sealer: KeySealer | undefined,
  job: RevocationJob,
): Promise<string | undefined> {
  const provider = deps.providers.get(job.provider);
  if (provider === undefined) return `provider "${job.provider}" is no longer configured`;
  const token = sealer && openProviderToken(sealer, job);
  if (token === undefined) return "keys.encryption_key does not open the kept token";
  try {
    await provider.revokeRefreshToken(token);
    return undefined;
  } catch (err) {
    return err instanceof Error ? err.message : String(err);
  }
}

/** A scheduled queue worker. */
export type ScheduledRevocations = ScheduledTask;

/**
 * Works the revocation queue every `intervalMs` on `scheduler` (a run never overlaps the
 * previous one; a failed run is logged and the next tries again). `serve` calls it when an
 * Apple provider is configured. Warns once when that is without `keys.encryption_key`: its
 * tokens are then not kept.
 *
 * @param deps store, providers, clock, logger, metrics and config
 * @param scheduler what repeats the runs
 * @param intervalMs the period (default {@linkcode REVOKE_INTERVAL_MS})
 * @returns a handle to stop it on shutdown
 */
export function scheduleRevocations(
  deps: RevocationDeps,
  scheduler: Scheduler,
  intervalMs: number = REVOKE_INTERVAL_MS,
): ScheduledRevocations {
  const apple = appleProviders(deps.providers);
  if (deps.config.keys.encryption_key === undefined) {
    deps.log.warn(
      "keys.encryption_key is not set: Sign in with Apple refresh tokens are not kept, so " +
        "deleting a user cannot revoke their Apple tokens (App Store Review Guideline 5.1.1(v)); " +
        "set keys.encryption_key",
      { providers: apple.map((p) => p.config.name) },
    );
  }
  return scheduleExclusive(
    scheduler,
    intervalMs,
    async () => {
      await processRevocations(deps);
    },
    (err) => deps.log.warn("provider token revocation run failed", { err }),
  );
}
