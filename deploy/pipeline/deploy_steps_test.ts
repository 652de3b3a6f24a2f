import assert from "node:assert/strict";
import { deploySteps } from "./deploy.ts";

Deno.test("deploySteps() gives each stage the time until the next, splitting the build", () => {
  const steps = deploySteps(
    [
      { stage: "revision", at: 0 },
      { stage: "zip", at: 50 },
      { stage: "build", at: 250 },
      { stage: "rules", at: 7250 },
      { stage: "deployed", at: 7300 },
      { stage: "seo", at: 8300 },
      { stage: "sync", at: 8310 },
      { stage: "invalidate", at: 8700 },
    ],
    8800,
    {
      cacheHit: true,
      frameworkCacheHit: false,
      timings: { cacheRestoreMs: 5, installMs: 1600, buildMs: 5200, cacheSaveMs: 3 },
    },
  );
  assert.deepEqual(steps, {
    revision: 50,
    zip: 200,
    cacheRestore: 5,
    install: 1600,
    build: 7000 - 5 - 1600,
    rules: 1050,
    sync: 400,
    invalidation: 100,
  });
});

Deno.test("deploySteps() counts 0 for steps that did not run (a --no-build deploy)", () => {
  const steps = deploySteps(
    [{ stage: "revision", at: 10 }, { stage: "sync", at: 20 }],
    70,
    undefined,
  );
  assert.deepEqual(steps, {
    revision: 10,
    zip: 0,
    cacheRestore: 0,
    install: 0,
    build: 0,
    rules: 0,
    sync: 50,
    invalidation: 0,
  });
});
