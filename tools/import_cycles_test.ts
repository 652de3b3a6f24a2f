import assert from "node:assert/strict";
import { cyclicEdges, domainFolder, edgeName, fileEdges, folderEdges } from "./import_cycles.ts";

const MEMBERS = ["deploy", "server"];

Deno.test("domainFolder() is the member's top-level folder; entry files have none", () => {
  assert.equal(domainFolder("deploy/infra/nodes/bucket.ts", MEMBERS), "deploy/infra");
  assert.equal(domainFolder("deploy/main.ts", MEMBERS), undefined);
  assert.equal(domainFolder("tests/deploy/x.ts", MEMBERS), undefined);
});

Deno.test("folderEdges() keeps one edge per folder pair, inside a member, without tests", () => {
  const graph = new Map([
    ["deploy/preview/a.ts", ["deploy/pipeline/b.ts", "deploy/preview/c.ts", "server/http/x.ts"]],
    ["deploy/preview/d.ts", ["deploy/pipeline/e.ts"]],
    ["deploy/pipeline/a_test.ts", ["deploy/preview/a.ts"]],
  ]);
  assert.deepEqual(folderEdges(graph, MEMBERS).map(edgeName), [
    "deploy/preview -> deploy/pipeline",
  ]);
});

Deno.test("cyclicEdges() finds the edges on cycles and leaves a one-way edge out", () => {
  const edge = (from: string, to: string) => ({ from, to, example: ["", ""] as const });
  const cycles = cyclicEdges([
    edge("d/a", "d/b"),
    edge("d/b", "d/c"),
    edge("d/c", "d/a"),
    edge("d/c", "d/z"),
    edge("d/x", "d/y"),
    edge("d/y", "d/x"),
  ]);
  assert.deepEqual(cycles.map((c) => c.map(edgeName)), [
    ["d/a -> d/b", "d/b -> d/c", "d/c -> d/a"],
    ["d/x -> d/y", "d/y -> d/x"],
  ]);
  assert.deepEqual(cyclicEdges([edge("d/a", "d/b")]), []);
});

Deno.test("fileEdges() finds a file cycle inside one folder, which folderEdges() cannot see", () => {
  const graph = new Map([
    ["deploy/job/job.ts", ["deploy/job/run_steps.ts", "deploy/errors.ts", "shared/mod.ts"]],
    ["deploy/job/run_steps.ts", ["deploy/job/job.ts", "deploy/errors.ts"]],
    ["deploy/job/job_test.ts", ["deploy/job/job.ts"]],
    ["deploy/errors.ts", []],
  ]);
  assert.deepEqual(cyclicEdges(folderEdges(graph, MEMBERS)), []);
  const cycles = cyclicEdges(fileEdges(graph, MEMBERS));
  assert.deepEqual(cycles.map((c) => c.map(edgeName)), [[
    "deploy/job/job.ts -> deploy/job/run_steps.ts",
    "deploy/job/run_steps.ts -> deploy/job/job.ts",
  ]]);
  // Broken by a leaf: no cycle left.
  graph.set("deploy/job/run_steps.ts", ["deploy/job/job_input.ts"]);
  assert.deepEqual(cyclicEdges(fileEdges(graph, MEMBERS)), []);
});
