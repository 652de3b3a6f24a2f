import assert from "node:assert/strict";
import { previewAges, previewRows, previewTable } from "./listing.ts";
import { previewRecord } from "./record.ts";
import type { LivePreview } from "./store.ts";

const T = Date.parse("2026-11-20T10:00:00Z");
const previews: LivePreview[] = [
  {
    id: "pr-1",
    record: previewRecord({
      id: "pr-1",
      url: "https://pr-1.preview.example.com",
      revision: "3f2a1b9c8d7e",
      deployedAt: new Date(T),
    }),
    newestUpload: T - 1000,
    objects: 4,
  },
  { id: "pr-2", record: null, newestUpload: T + 3_600_000, objects: 2 },
];

Deno.test("previewRows(): newest deploy first; a preview without a record shows its URL and newest upload", () => {
  assert.deepEqual(previewRows(previews, "preview.example.com"), [
    {
      id: "pr-2",
      url: "https://pr-2.preview.example.com",
      revision: null,
      deployedAt: "2026-11-20T11:00:00.000Z",
    },
    {
      id: "pr-1",
      url: "https://pr-1.preview.example.com",
      revision: "3f2a1b9c8d7e",
      deployedAt: "2026-11-20T10:00:00.000Z",
    },
  ]);
  assert.deepEqual(previewAges(previews), [
    { id: "pr-1", lastDeployedAt: T },
    { id: "pr-2", lastDeployedAt: T + 3_600_000 },
  ]);
});

Deno.test("previewTable(): a header and aligned rows", () => {
  const lines = previewTable(previewRows(previews, "preview.example.com"));
  assert.deepEqual(lines, [
    "ID    URL                               REVISION      DEPLOYED",
    "pr-2  https://pr-2.preview.example.com  -             2026-11-20 11:00:00Z",
    "pr-1  https://pr-1.preview.example.com  3f2a1b9c8d7e  2026-11-20 10:00:00Z",
  ]);
});
