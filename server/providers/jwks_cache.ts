import type { Clock } from "@org/shared";
import { createLocalJWKSet, errors, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import { serverError } from "../errors.ts";
import { type Fetch, providerFetch, providerJson } from "./provider_fetch.ts";

/** Options for {@linkcode JwksCache}. */
export interface JwksCacheOptions {
  readonly fetch: Fetch;
  readonly clock: Clock;
  /** Seconds before keys are re-fetched even without an unknown `kid` (default 1 h). */
  readonly maxAgeSeconds?: number;
  /** Least seconds between two re-fetches triggered by an unknown `kid` (default 30 s). */
  readonly cooldownSeconds?: number;
  readonly timeoutSeconds: number;
}

/**
 * A provider's key set, cached. A token whose `kid` is not in the cache triggers one
 * re-fetch (at most one per cooldown), so upstream key rotation never breaks sign-in and a
 * stream of bogus `kid`s cannot make us hammer the provider.
 */
export class JwksCache {
  #keys: JWTVerifyGetKey | undefined;
  #kids = new Set<string | undefined>();
  #fetchedAt = -Infinity;
  #inflight: Promise<void> | undefined;

  /** @param jwksUri the provider's JWKS URL @param options fetch, clock and timings */
  constructor(private readonly jwksUri: string, private readonly options: JwksCacheOptions) {}

  /**
   * A jose key resolver for `jwtVerify`: serves cached keys, re-fetching when stale or when the
   * token names an unknown `kid` and the cooldown has passed.
   */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const now = this.options.clock.now();
    const maxAge = (this.options.maxAgeSeconds ?? 3600) * 1000;
    const cooldown = (this.options.cooldownSeconds ?? 30) * 1000;
    const stale = now - this.#fetchedAt >= maxAge;
    const unknownKid = !this.#kids.has(header.kid) && now - this.#fetchedAt >= cooldown;
    if (!this.#keys || stale || unknownKid) await this.refresh();
    try {
      return await this.#keys!(header, token);
    } catch (err) {
      // No (or several) keys for the token's kid/alg: the token's fault, the caller refuses it.
      if (
        err instanceof errors.JWKSNoMatchingKey || err instanceof errors.JWKSMultipleMatchingKeys
      ) {
        throw err;
      }
      // The matching entry could not be imported: the provider published a broken key.
      throw serverError(502, { msg: "provider JWKS entry unusable", kid: header.kid, err });
    }
  };

  /** Fetches the key set now (one fetch shared by concurrent callers). */
  refresh(): Promise<void> {
    this.#inflight ??= this.#fetch().finally(() => this.#inflight = undefined);
    return this.#inflight;
  }

  async #fetch(): Promise<void> {
    const res = await providerFetch(this.options.fetch, this.jwksUri, {
      headers: { accept: "application/json" },
    }, this.options.timeoutSeconds);
    if (!res.ok) {
      await res.body?.cancel();
      throw serverError(502, { msg: "provider JWKS fetch failed", status: res.status });
    }
    const body = await providerJson(res, "JWKS");
    if (!Array.isArray(body.keys)) throw serverError(502, { msg: "provider JWKS has no keys" });
    const set = body as unknown as JSONWebKeySet;
    let keys: JWTVerifyGetKey;
    try {
      keys = createLocalJWKSet(set);
    } catch (err) {
      // A provider error (malformed entries), not ours: 502 like any unusable provider answer.
      throw serverError(502, { msg: "provider JWKS is malformed", err });
    }
    this.#keys = keys;
    this.#kids = new Set(set.keys.map((k) => (k as { kid?: string } | null)?.kid));
    this.#fetchedAt = this.options.clock.now();
  }
}
