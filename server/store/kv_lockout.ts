import type { Clock } from "@org/shared";
import type { LockoutState, LockoutStore } from "./lockout.ts";
import type { OutboxFor } from "./side_records.ts";
import { expireIn, K } from "./kv_keys.ts";
import { queueOutbox } from "./kv_outbox.ts";

/**
 * {@linkcode LockoutStore} on Deno KV: one entry per peer address, written with a versionstamp
 * check so concurrent failures on several instances all count. Entries carry `expireIn` up to
 * the end of their window or lockout; expiry itself is decided on the stored times.
 */
export class KvLockoutStore implements LockoutStore {
  /** @param kv an opened Deno KV @param clock the time source for `expireIn` */
  constructor(private readonly kv: Deno.Kv, private readonly clock: Clock) {}

  /** @inheritdoc */
  async get(peer: string): Promise<LockoutState | undefined> {
    return (await this.kv.get<LockoutState>(K.lockout(peer))).value ?? undefined;
  }

  /** @inheritdoc */
  async update(
    peer: string,
    change: (current: LockoutState | undefined) => LockoutState,
    forgetAt: (next: LockoutState) => number,
    outbox?: OutboxFor<[before: LockoutState | undefined, next: LockoutState]>,
  ): Promise<LockoutState> {
    const key = K.lockout(peer);
    for (;;) {
      const entry = await this.kv.get<LockoutState>(key);
      const before = entry.value ?? undefined;
      const next = change(before);
      const res = await queueOutbox(this.kv.atomic(), outbox?.(before, next)).check(entry)
        .set(key, next, { expireIn: expireIn(forgetAt(next), this.clock.now()) })
        .commit();
      if (res.ok) return next;
    }
  }
}
