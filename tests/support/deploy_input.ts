/**
 * A deploy pipeline input for loopback runs (tests and benchmarks that call `runDeploy` on
 * s3rver and the CloudFront fake): the production environment of `site/` in one bucket, with
 * its lock and owed record, SEO files off, and a revision the caller names.
 *
 * @module
 */
import type { CloudFrontClient } from "@aws-sdk/client-cloudfront";
import type { S3Client } from "@aws-sdk/client-s3";
import { silentLogger } from "@org/shared";
import type { DeployInput } from "../../deploy/pipeline/deploy.ts";
import { owedInvalidationKey } from "../../deploy/state/bucket_layout.ts";

/** What {@linkcode loopbackDeployInput} cannot default. */
export interface LoopbackDeploy {
  /** The site repository. */
  readonly repoRoot: string;
  /** The bucket. */
  readonly bucket: string;
  /** Clients on s3rver and the CloudFront fake. */
  readonly clients: { readonly s3: S3Client; readonly cloudfront: CloudFrontClient };
  /** The revision `git rev-parse` answers, read at each deploy. */
  readonly revision: () => string;
  /** Where the job runs. */
  readonly builder: DeployInput["builder"];
}

/**
 * A pipeline input for the live site of `production`, overridable field by field.
 *
 * @param site repo, bucket, clients, revision and builder
 * @param over fields to replace
 * @returns the input
 */
export function loopbackDeployInput(
  site: LoopbackDeploy,
  over: Partial<DeployInput> = {},
): DeployInput {
  return {
    repoRoot: site.repoRoot,
    env: "production",
    isProduction: true,
    source: { sourceIgnore: ["dist/"], sourceInclude: [] },
    paths: { app: ".", dist: "dist" },
    maxDurationSeconds: 600,
    bucket: site.bucket,
    prefix: "site/",
    distributionId: "EDIST",
    tags: { app: "example.com", environment: "production" },
    seo: { robots: "off", sitemap: "off" },
    origin: "https://example.com",
    invalidationMaxPaths: 1000,
    builder: site.builder,
    keepOutputDays: 30,
    clients: site.clients,
    runCommand: (_cmd, args) =>
      Promise.resolve({
        code: 0,
        stdout: args[0] === "rev-parse" ? `${site.revision()}\n` : "",
        stderr: "",
      }),
    logger: silentLogger,
    lock: { key: "locks/production.json", holder: "loopback", waitMs: 0 },
    owedKey: owedInvalidationKey("production"),
    ...over,
  };
}
