/**
 * Test helper: a tiny site repository whose build is a real `deno task build` that copies
 * `public/` into `dist/`, zipped like a deploy zips it.
 *
 * @module
 */
import { createSourceZip } from "../../../source/zip.ts";
import type { JobInput } from "../../../job/job_input.ts";

/**
 * Writes the fixture repo into a temp dir and zips it.
 *
 * @param build the `build` task (default: copy `public/` to `dist/`)
 * @returns the zip path and a cleanup function
 */
export async function fixtureSiteZip(
  build = "mkdir -p dist && cp -r public/. dist/",
): Promise<{ zip: string; dispose: () => Promise<void> }> {
  const dir = await Deno.makeTempDir({ prefix: "fixture-site-" });
  await Deno.mkdir(`${dir}/repo/public/blog`, { recursive: true });
  await Deno.writeTextFile(
    `${dir}/repo/deno.json`,
    JSON.stringify({ tasks: { build } }, null, 2),
  );
  await Deno.writeTextFile(`${dir}/repo/public/index.html`, "<h1>home</h1>\n");
  await Deno.writeTextFile(`${dir}/repo/public/blog/index.html`, "<h1>blog</h1>\n");
  await Deno.writeTextFile(`${dir}/repo/public/app.css`, "body{}\n");
  const zip = await createSourceZip({
    repoRoot: `${dir}/repo`,
    sourceIgnore: ["dist/", "node_modules/"],
    sourceInclude: [],
    outPath: `${dir}/source.zip`,
  });
  return { zip: zip.path, dispose: () => Deno.remove(dir, { recursive: true }) };
}

/** The bucket the fixture jobs build into. */
export const FIXTURE_BUCKET = "production-blog-123456789012";

/**
 * A production build job for the fixture site, stored as `build/<id>.zip`.
 *
 * @param id the build id
 */
export function fixtureJob(id: string): JobInput {
  return {
    buildId: id,
    source: { bucketKey: `build/${id}.zip` },
    paths: { app: ".", dist: "dist" },
    maxDurationSeconds: 600,
    target: { bucket: FIXTURE_BUCKET, prefix: "site/", region: "us-east-1" },
    tags: { app: "blog", environment: "production" },
    seo: { robots: "auto", sitemap: "auto" },
    production: true,
    origin: "https://blog.example.com",
    record: {
      startedAt: "2026-05-01T10:00:00.000Z",
      source: `build/${id}.zip`,
      logGroup: "/aws/microvms/production-blog-builder",
      logStream: `build-${id}-abcdef12`,
    },
  };
}
