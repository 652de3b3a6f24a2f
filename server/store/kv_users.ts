import type { Clock } from "@org/shared";
import type { OutboxMessage } from "./outbox.ts";
import type { OutboxFor } from "./side_records.ts";
import type { CreateResult, UserRecord, UserStore } from "./users.ts";
import { K, MINUS_ONE, ONE } from "./kv_keys.ts";
import { queueOutbox } from "./kv_outbox.ts";

/** {@linkcode UserStore} on Deno KV; users by id plus a unique (provider, external_id) index. */
export class KvUserStore implements UserStore {
  /** @param kv an opened Deno KV */
  constructor(private readonly kv: Deno.Kv, private readonly clock: Clock) {}

  /** @inheritdoc */
  async get(id: string): Promise<UserRecord | undefined> {
    return (await this.kv.get<UserRecord>(K.user(id))).value ?? undefined;
  }

  /** @inheritdoc */
  async findByExternalId(provider: string, externalId: string): Promise<UserRecord | undefined> {
    const ref = await this.kv.get<string>(K.userByExternal(provider, externalId));
    return ref.value === null ? undefined : await this.get(ref.value);
  }

  /** @inheritdoc */
  async create(user: UserRecord, outbox?: readonly OutboxMessage[]): Promise<CreateResult> {
    const res = await queueOutbox(this.kv.atomic(), outbox)
      .check({ key: K.user(user.id), versionstamp: null })
      .check({ key: K.userByExternal(user.provider, user.external_id), versionstamp: null })
      .set(K.user(user.id), user)
      .set(K.userByExternal(user.provider, user.external_id), user.id)
      .sum(K.usersByStatus(user.status), ONE.value)
      .commit();
    return res.ok ? { ok: true } : { ok: false, reason: "conflict" };
  }

  /** @inheritdoc */
  async update(
    id: string,
    change: (user: UserRecord) => UserRecord,
    outbox?: OutboxFor<[before: UserRecord, after: UserRecord]>,
  ): Promise<UserRecord | undefined> {
    for (;;) {
      const entry = await this.kv.get<UserRecord>(K.user(id));
      if (entry.value === null) return undefined;
      const next = { ...change(entry.value), id, updated_at: this.clock.now() };
      const op = queueOutbox(this.kv.atomic(), outbox?.(entry.value, next))
        .check(entry).set(K.user(id), next);
      if (next.status !== entry.value.status) {
        op.sum(K.usersByStatus(entry.value.status), MINUS_ONE.value)
          .sum(K.usersByStatus(next.status), ONE.value);
      }
      if ((await op.commit()).ok) return next;
    }
  }

  /** @inheritdoc */
  async list(cursor: string | undefined, limit: number): Promise<UserRecord[]> {
    const selector: Deno.KvListSelector = cursor === undefined
      ? { prefix: K.usersPrefix }
      : { prefix: K.usersPrefix, start: [...K.usersPrefix, cursor + "\0"] };
    const out: UserRecord[] = [];
    for await (const e of this.kv.list<UserRecord>(selector, { limit })) out.push(e.value);
    return out;
  }
}
