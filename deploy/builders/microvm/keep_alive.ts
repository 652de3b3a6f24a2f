/**
 * Keeps a building MicroVM from idling out: the idle policy (`microvm.idle`, passed unchanged)
 * suspends a VM that receives no requests for `maxIdleDurationSeconds`, and a build produces no
 * inbound traffic. So while waiting, the builder requests the agent's `/healthz` through the
 * VM's endpoint, authorized with a `CreateMicrovmAuthToken` token (refreshed before it expires).
 *
 * @module
 */
import {
  CreateMicrovmAuthTokenCommand,
  type LambdaMicrovmsClient,
} from "@aws-sdk/client-lambda-microvms";
import type { Clock } from "@org/shared";
import { AGENT_HOOK_PORT } from "./agent/hooks.ts";

/** A running VM to keep awake. */
export interface KeepAliveTarget {
  /** The VM id. */
  readonly microvmId: string;
  /** Its HTTPS endpoint. */
  readonly endpoint: string;
}

/** Pings a VM once; failures are the caller's to log (they never fail a build). */
export type KeepAlive = (target: KeepAliveTarget) => Promise<void>;

/** Lifetime of the auth tokens the keep-alive requests (the service allows 1 to 60). */
const TOKEN_MINUTES = 15;

/**
 * The default keep-alive: one auth token per VM, renewed a minute before it expires, and a
 * `GET <endpoint>/healthz` with it.
 *
 * @param microvms the MicroVMs client
 * @param clock time source (token expiry)
 * @param fetchFn the HTTP client; injected so tests never leave loopback
 * @returns the keep-alive function
 */
export function createKeepAlive(
  microvms: LambdaMicrovmsClient,
  clock: Clock,
  fetchFn: typeof fetch = fetch,
): KeepAlive {
  const tokens = new Map<string, { headers: Record<string, string>; expires: number }>();
  return async (target) => {
    let token = tokens.get(target.microvmId);
    if (!token || clock.now() >= token.expires) {
      const out = await microvms.send(
        new CreateMicrovmAuthTokenCommand({
          microvmIdentifier: target.microvmId,
          expirationInMinutes: TOKEN_MINUTES,
          allowedPorts: [{ port: AGENT_HOOK_PORT }],
        }),
      );
      token = { headers: out.authToken ?? {}, expires: clock.now() + (TOKEN_MINUTES - 1) * 60_000 };
      tokens.set(target.microvmId, token);
    }
    const res = await fetchFn(`${target.endpoint.replace(/\/+$/, "")}/healthz`, {
      headers: token.headers,
    });
    await res.body?.cancel();
  };
}

/**
 * How often to ping: half the idle allowance, between 1 s and 60 s.
 *
 * @param maxIdleDurationSeconds `microvm.idle.maxIdleDurationSeconds`
 * @returns milliseconds
 */
export function keepAliveIntervalMs(maxIdleDurationSeconds: number): number {
  return Math.max(1000, Math.min(60_000, (maxIdleDurationSeconds * 1000) / 2));
}
