import assert from "node:assert/strict";
import { unzipSync } from "fflate";
import { bundleTransform } from "./lambda_bundle_build.ts";
import { TRANSFORM_BUNDLE } from "./lambda_bundle.ts";
import { transformPackage } from "./lambda_package.ts";

Deno.test("the committed transform bundle is what `deno task analytics:bundle` builds now", async () => {
  assert.equal(
    TRANSFORM_BUNDLE,
    await bundleTransform(),
    "stale: run `deno task analytics:bundle` and commit lambda_bundle.ts",
  );
});

Deno.test("transformPackage() is reproducible: same code, same zip, same CodeSha256", () => {
  const a = transformPackage();
  const b = transformPackage();
  assert.deepEqual(a.zip, b.zip);
  assert.equal(a.sha256, b.sha256);
  assert.notEqual(transformPackage(TRANSFORM_BUNDLE + "\n").sha256, a.sha256);
  const files = unzipSync(a.zip);
  assert.deepEqual(Object.keys(files), ["index.mjs"]);
  assert.equal(new TextDecoder().decode(files["index.mjs"]), TRANSFORM_BUNDLE);
});
