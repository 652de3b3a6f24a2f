import assert from "node:assert/strict";
import { parseDuration } from "@org/shared";
import { previewsToPrune } from "./prune.ts";

const DAY = 86_400_000;
const HOUR = 3_600_000;
const NOW = Date.parse("2026-11-23T12:00:00Z");

Deno.test("previewsToPrune() picks previews not deployed for longer than the duration, oldest first", () => {
  const previews = [
    { id: "pr-3", lastDeployedAt: NOW - 20 * DAY },
    { id: "pr-1", lastDeployedAt: NOW - 30 * DAY },
    { id: "pr-2", lastDeployedAt: NOW - 1 * DAY },
    { id: "pr-4", lastDeployedAt: NOW - 20 * DAY },
  ];
  assert.deepEqual(previewsToPrune(previews, NOW, parseDuration("14d")), ["pr-1", "pr-3", "pr-4"]);
  assert.deepEqual(previewsToPrune(previews, NOW, parseDuration("36h")), ["pr-1", "pr-3", "pr-4"]);
  assert.deepEqual(previewsToPrune(previews, NOW, parseDuration("12h")), [
    "pr-1",
    "pr-3",
    "pr-4",
    "pr-2",
  ]);
  assert.deepEqual(previewsToPrune(previews, NOW, parseDuration("60d")), []);
  assert.deepEqual(previewsToPrune([], NOW, 1), []);
});

Deno.test("previewsToPrune() keeps a preview deployed exactly at the cut-off", () => {
  const at = [{ id: "pr-9", lastDeployedAt: NOW - 36 * HOUR }];
  assert.deepEqual(previewsToPrune(at, NOW, parseDuration("36h")), []);
  assert.deepEqual(previewsToPrune(at, NOW + 1, parseDuration("36h")), ["pr-9"]);
});
