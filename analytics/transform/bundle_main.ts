/**
 * Regenerates `lambda_bundle.ts`, the transform Lambda's code as one ES module
 * (`deno task analytics:bundle`). `deno bundle` inlines the transform and the `isbot` pattern
 * list; `@aws-sdk/*` stays an import because the Lambda Node.js runtime provides the SDK. The
 * output is committed, so every machine deploys the same bytes (and the function's code hash
 * only changes with the code); `lambda_bundle_test.ts` fails when it is stale.
 *
 * @module
 */
import { bundleTransform, renderBundleModule } from "./lambda_bundle_build.ts";

if (import.meta.main) {
  const js = await bundleTransform();
  const target = new URL("./lambda_bundle.ts", import.meta.url);
  await Deno.writeTextFile(target, renderBundleModule(js));
  await Deno.stdout.write(new TextEncoder().encode(`wrote ${target.pathname}\n`));
}
