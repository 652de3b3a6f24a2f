import type { KeptProviderToken, ProviderTokenStore, RevocationJob } from "./provider_tokens.ts";

/** Key layout of the kept provider tokens and their revocation queue. */
export const PROVIDER_TOKEN_KEYS = {
  kept: (userId: string): Deno.KvKey => ["provider_tokens", userId],
  job: (userId: string): Deno.KvKey => ["provider_revocations", userId],
  jobsPrefix: ["provider_revocations"] as Deno.KvKey,
} as const;

const K = PROVIDER_TOKEN_KEYS;

/**
 * {@linkcode ProviderTokenStore} on Deno KV: one entry per user for the kept token, one per
 * queued revocation. A lease is a versionstamp-checked write, so two instances on one remote
 * KV never hold the same job. The queue is expected to stay short (it empties as soon as the
 * provider answers), so `lease` and `pending` read all of it.
 */
export class KvProviderTokenStore implements ProviderTokenStore {
  /** @param kv an opened Deno KV */
  constructor(private readonly kv: Deno.Kv) {}

  /** @inheritdoc */
  async keep(token: KeptProviderToken): Promise<void> {
    await this.kv.set(K.kept(token.user_id), token);
  }

  /** @inheritdoc */
  async queue(userId: string, at: number): Promise<boolean> {
    for (;;) {
      const kept = await this.kv.get<KeptProviderToken>(K.kept(userId));
      if (kept.value === null) return false;
      const job: RevocationJob = { ...kept.value, attempts: 0, next_at: at, leased_until: 0 };
      const res = await this.kv.atomic().check(kept).delete(K.kept(userId))
        .set(K.job(userId), job).commit();
      if (res.ok) return true;
    }
  }

  /** @inheritdoc */
  async lease(now: number, leasedUntil: number, limit: number): Promise<RevocationJob[]> {
    const leased: RevocationJob[] = [];
    for await (const e of this.kv.list<RevocationJob>({ prefix: K.jobsPrefix })) {
      if (leased.length >= limit) break;
      const job = e.value;
      if (job.next_at > now || job.leased_until > now) continue;
      const mine = { ...job, leased_until: leasedUntil };
      // Lost to another instance's lease when the versionstamp moved: skip the job.
      if ((await this.kv.atomic().check(e).set(e.key, mine).commit()).ok) leased.push(mine);
    }
    return leased;
  }

  /** @inheritdoc */
  async done(userId: string): Promise<void> {
    await this.kv.delete(K.job(userId));
  }

  /** @inheritdoc */
  async retry(userId: string, nextAt: number, error: string): Promise<void> {
    for (;;) {
      const e = await this.kv.get<RevocationJob>(K.job(userId));
      if (e.value === null) return;
      const job: RevocationJob = {
        ...e.value,
        attempts: e.value.attempts + 1,
        next_at: nextAt,
        leased_until: 0,
        last_error: error,
      };
      if ((await this.kv.atomic().check(e).set(e.key, job).commit()).ok) return;
    }
  }

  /** @inheritdoc */
  async pending(): Promise<number> {
    let n = 0;
    for await (const _ of this.kv.list({ prefix: K.jobsPrefix })) n++;
    return n;
  }
}
