import assert from "node:assert/strict";
import { FixedClock } from "@org/shared";
import { createKvStore } from "../store/kv_store.ts";
import type { UserRecord } from "../store/users.ts";
import { lookUpUsers } from "./user_lookup.ts";

function user(n: number, email: string): UserRecord {
  return {
    id: `usr_01J${String(n).padStart(23, "0")}`,
    provider: n % 2 ? "github" : "google",
    external_id: `ext-${n}`,
    email,
    display_name: email,
    status: "active",
    metadata: {},
    claims: {},
    created_at: 0,
    updated_at: 0,
  };
}

Deno.test("lookUpUsers() finds by id, provider + external id, and exact email (case-insensitive)", async () => {
  await using kv = await Deno.openKv(":memory:");
  const { users } = createKvStore(kv, new FixedClock(0));
  for (let n = 1; n <= 5; n++) {
    await users.create(user(n, n === 4 ? "ada@example.com" : `u${n}@example.com`));
  }
  await users.create(user(6, "Ada@Example.com"));
  const ids = async (q: Parameters<typeof lookUpUsers>[1], limit?: number) => {
    const r = await lookUpUsers(users, q, limit);
    return { ids: r.users.map((u) => u.external_id), complete: r.complete };
  };
  assert.deepEqual(await ids({ by: "id", id: user(3, "").id }), { ids: ["ext-3"], complete: true });
  assert.deepEqual(await ids({ by: "id", id: "usr_nope" }), { ids: [], complete: true });
  assert.deepEqual(await ids({ by: "external", provider: "github", externalId: "ext-5" }), {
    ids: ["ext-5"],
    complete: true,
  });
  assert.deepEqual(await ids({ by: "external", provider: "google", externalId: "ext-5" }), {
    ids: [],
    complete: true,
  });
  assert.deepEqual(await ids({ by: "email", email: " ADA@example.com " }), {
    ids: ["ext-4", "ext-6"],
    complete: true,
  });
  assert.deepEqual(await ids({ by: "email", email: "ada@example" }), { ids: [], complete: true });
  // Reading exactly every user is complete; stopping short of them says so.
  assert.deepEqual(await ids({ by: "email", email: "ada@example.com" }, 6), {
    ids: ["ext-4", "ext-6"],
    complete: true,
  });
  assert.deepEqual(await ids({ by: "email", email: "ada@example.com" }, 4), {
    ids: ["ext-4"],
    complete: false,
  });
});
