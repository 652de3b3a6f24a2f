import assert from "node:assert/strict";
import {
  previewIdOfKey,
  previewPrefix,
  previewRecordKey,
  PREVIEWS_PREFIX,
  previewSitePrefix,
} from "./bucket_layout.ts";

Deno.test("preview layout: a preview's site, record and everything sit under previews/<id>/", () => {
  assert.equal(previewPrefix("pr-42"), "previews/pr-42/");
  assert.equal(previewSitePrefix("pr-42"), "previews/pr-42/site/");
  assert.equal(previewRecordKey("pr-42"), "previews/pr-42/preview.json");
  for (const key of [previewSitePrefix("pr-42"), previewRecordKey("pr-42")]) {
    assert.ok(key.startsWith(previewPrefix("pr-42")));
    assert.ok(key.startsWith(PREVIEWS_PREFIX));
  }
  // One preview's prefix never covers another's (pr-4 vs pr-42).
  assert.ok(!previewSitePrefix("pr-42").startsWith(previewPrefix("pr-4")));
});

Deno.test("previewIdOfKey() finds the preview a key or common prefix belongs to", () => {
  assert.equal(previewIdOfKey("previews/pr-42/site/index.html"), "pr-42");
  assert.equal(previewIdOfKey("previews/pr-7/"), "pr-7");
  assert.equal(previewIdOfKey("previews/"), undefined);
  assert.equal(previewIdOfKey("previews//x"), undefined);
  assert.equal(previewIdOfKey("site/index.html"), undefined);
  assert.equal(previewIdOfKey("state/preview.json"), undefined);
});
