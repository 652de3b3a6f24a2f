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
  tags: [],
  textContent: "Body.",
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
  const ref = { uri: "at://did:plc:owner/app.bsky.feed.post/3abc", cid: "bafyrei" };
  const plan = planDocuments(
    [post("a", "New title"), post("b")],
    [remote(post("a"), { tags: ["x"], bskyPostRef: ref, other: 1 }, "cidA"), remote(post("b"))],
    PUB,
  );
  // The post no longer has tags: the record loses them, and keeps what sync does not own.
  assert.deepEqual(plan.update.map((w) => [w.rkey, w.swapCid, w.record]), [[
    "rka",
    "cidA",
    { bskyPostRef: ref, other: 1, ...documentRecord(post("a", "New title"), PUB) },
  ]]);
  assert.deepEqual(plan.unchanged, ["rkb"]);
});

Deno.test("planDocuments() sees a changed cover or tag list as an update, an equal one as none", () => {
  const cover = {
    $type: "blob" as const,
    ref: { $link: "bafkreicover" },
    mimeType: "image/png",
    size: 10,
  };
  const tagged: Post = { ...post("a"), tags: ["t1", "t2"] };
  const covers = new Map([["rka", cover]]);
  // As a PDS answers it: CBOR's key order, not ours.
  const stored = { ref: cover.ref, size: 10, $type: "blob", mimeType: "image/png" };
  const same = planDocuments([tagged], [remote(tagged, { coverImage: stored })], PUB, covers);
  assert.deepEqual(same.unchanged, ["rka"]);
  const newCover = new Map([["rka", { ...cover, ref: { $link: "bafkreiother" } }]]);
  assert.equal(
    planDocuments([tagged], [remote(tagged, { coverImage: cover })], PUB, newCover).update.length,
    1,
  );
  const retagged = { ...tagged, tags: ["t2", "t1"] };
  assert.equal(planDocuments([retagged], [remote(tagged)], PUB).update.length, 1);
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
