import assert from "node:assert/strict";
import { documentRecord, planDocuments, type RemoteRecord } from "./document_plan.ts";
import type { Post } from "./posts.ts";

const PUB = "at://did:plc:owner/site.standard.publication/self";
const post = (slug: string, title = slug): Post => ({
  file: `${slug}.md`,
  path: `/posts/${slug}/`,
  rkey: `rk${slug}`,
  title,
  description: "d",
  publishedAt: "2026-01-02T00:00:00.000Z",
});
const remote = (p: Post, extra: Record<string, unknown> = {}, cid = "cid1"): RemoteRecord => ({
  uri: `at://did:plc:owner/site.standard.document/${p.rkey}`,
  cid,
  value: { ...documentRecord(p, PUB), ...extra },
});

Deno.test("planDocuments() creates every record of a first sync", () => {
  const plan = planDocuments([post("a"), post("b")], [], PUB);
  assert.deepEqual(plan.create.map((w) => [w.rkey, w.record]), [
    ["rka", documentRecord(post("a"), PUB)],
    ["rkb", documentRecord(post("b"), PUB)],
  ]);
  assert.deepEqual([plan.update, plan.unchanged, plan.orphans], [[], [], []]);
});

Deno.test("planDocuments() changes nothing when the records match the posts", () => {
  const plan = planDocuments([post("a")], [remote(post("a"), { extra: "kept" })], PUB);
  assert.deepEqual(plan, { create: [], update: [], unchanged: ["rka"], orphans: [] });
});

Deno.test("planDocuments() updates only the edited post, keeping fields it does not own", () => {
  const plan = planDocuments(
    [post("a", "New title"), post("b")],
    [remote(post("a"), { tags: ["x"] }, "cidA"), remote(post("b"))],
    PUB,
  );
  assert.deepEqual(plan.update.map((w) => [w.rkey, w.swapCid, w.record]), [[
    "rka",
    "cidA",
    { ...documentRecord(post("a", "New title"), PUB), tags: ["x"] },
  ]]);
  assert.deepEqual(plan.unchanged, ["rkb"]);
});

Deno.test("planDocuments() lists a deleted post's record as an orphan and deletes nothing", () => {
  const plan = planDocuments([], [remote(post("gone"))], PUB);
  assert.deepEqual(plan, {
    create: [],
    update: [],
    unchanged: [],
    orphans: [{
      rkey: "rkgone",
      uri: "at://did:plc:owner/site.standard.document/rkgone",
      path: "/posts/gone/",
    }],
  });
});

Deno.test("planDocuments() ignores records of another publication", () => {
  const other = remote(post("x"), { site: "at://did:plc:owner/site.standard.publication/two" });
  assert.deepEqual(planDocuments([], [other], PUB).orphans, []);
});
