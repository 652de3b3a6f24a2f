/**
 * A site repo plus every AWS fake for the infrastructure commands' end-to-end tests: s3rver
 * behind the bucket-configuration proxy, the CloudFront/ACM/IAM/Logs/STS fakes, and a runner
 * that executes the CLI in-process with their environment (no real sleeping).
 *
 * @module
 */
import { join } from "node:path";
import { GetObjectCommand, ListObjectsV2Command, S3Client } from "@aws-sdk/client-s3";
import { type CliDeps, runCli } from "../../deploy/cli/run.ts";
import { captureCli } from "../../deploy/cli/test_deps.ts";
import { lookupAccountIdWithSts } from "../../deploy/aws/clients.ts";
import { type AwsFakes, type AwsFakesOptions, startAwsFakes } from "../fakes/aws.ts";
import { S3RVER_CREDENTIALS, type SiteS3, startSiteS3 } from "../fakes/s3_bucket_config.ts";

/** The account every fake reports. */
export const ACCOUNT = "123456789012";

/** A running world. */
export interface InfraWorld extends AsyncDisposable {
  readonly s3: SiteS3;
  readonly aws: AwsFakes;
  /** The site repo (temp dir with `.git` and `config/<env>.jsonc`). */
  readonly root: string;
  /** The environment a CLI run gets. */
  readonly env: Record<string, string>;
  /** Runs `deploy <argv>` in-process; `overrides` replace CLI deps (fetch, prompt, tty). */
  run(
    argv: string[],
    overrides?: Partial<CliDeps>,
  ): Promise<{ code: number; stdout: string; stderr: string }>;
  /** Rewrites the site's configuration. */
  configure(config: Record<string, unknown>, env?: string): Promise<void>;
}

/**
 * Starts the fakes and writes a site repo with `config`.
 *
 * @param config the `config/production.jsonc` contents
 * @param options fake options (e.g. ACM issuance timing)
 * @returns the world; `await using` stops it
 */
export async function startInfraWorld(
  config: Record<string, unknown>,
  options: AwsFakesOptions = {},
): Promise<InfraWorld> {
  const s3 = await startSiteS3();
  const aws = startAwsFakes({
    accountId: ACCOUNT,
    region: "eu-west-1",
    s3Endpoint: s3.endpoint,
    ...options,
  });
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "deploy-infra-" }));
  await Deno.mkdir(join(root, ".git"));
  await Deno.mkdir(join(root, "config"));
  const env: Record<string, string> = { ...aws.env, ...S3RVER_CREDENTIALS, NO_COLOR: "1" };
  const configure = async (c: Record<string, unknown>, name = "production") => {
    await Deno.writeTextFile(join(root, "config", `${name}.jsonc`), JSON.stringify(c, null, 2));
  };
  await configure(config);
  const close = async () => {
    await aws.close();
    await s3.close();
    await Deno.remove(root, { recursive: true }).catch(() => {});
  };
  return {
    s3,
    aws,
    root,
    env,
    configure,
    async run(argv, overrides = {}) {
      const cli = captureCli({
        cwd: root,
        environ: env,
        lookupAccountId: () => lookupAccountIdWithSts(env),
        sleep: () => Promise.resolve(),
        ...overrides,
      });
      const code = await runCli(argv, cli.deps);
      return { code, stdout: cli.stdout(), stderr: cli.stderr() };
    },
    close,
    [Symbol.asyncDispose]: close,
  } as InfraWorld & { close(): Promise<void> };
}

/** AWS operations that change something (for "a second run changes nothing"). */
export function mutatingCalls(world: InfraWorld): string[] {
  const names = [...world.aws.allCalls(), ...world.s3.calls].map((c) => c.operation);
  return names.filter((n) => /^(Create|Put|Update|Delete|Tag|Untag|Request|Add|Remove)/.test(n));
}

/**
 * An S3 client on the world's s3rver (close it with `destroy()`).
 *
 * @param world the running world
 */
export function siteS3(world: InfraWorld): S3Client {
  return new S3Client({
    region: "eu-west-1",
    endpoint: world.s3.endpoint,
    forcePathStyle: true,
    credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
  });
}

/**
 * Every object of `bucket`, as text (latin1, so any byte survives), gzip-compressed objects
 * (the build cache's `.tar.gz` archives) decompressed first: what a test searches for a value
 * that must never be stored.
 *
 * @param world the running world
 * @param bucket the bucket to read
 * @returns key to text
 */
export async function bucketTexts(world: InfraWorld, bucket: string): Promise<Map<string, string>> {
  const s3 = siteS3(world);
  try {
    const texts = new Map<string, string>();
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: bucket }));
    for (const { Key } of listed.Contents ?? []) {
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: Key! }));
      let bytes = new Uint8Array(await got.Body!.transformToByteArray());
      if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
        const gunzip = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
        bytes = new Uint8Array(await new Response(gunzip).arrayBuffer());
      }
      texts.set(Key!, new TextDecoder("latin1").decode(bytes));
    }
    return texts;
  } finally {
    s3.destroy();
  }
}

/**
 * Serves the production site of `blog` as CloudFront would: each path from the bucket's live
 * objects (`site/…`), with their stored type; 404 for a missing one. For tests whose peer fetches
 * the deployed pages (the PDS publishing flows).
 *
 * @param s3 a client of the world's S3 ({@linkcode siteS3}; the caller destroys it)
 * @returns a `Deno.serve` handler
 */
export function liveSiteHandler(s3: S3Client): (req: Request) => Promise<Response> {
  return async (req) => {
    try {
      const out = await s3.send(
        new GetObjectCommand({
          Bucket: `production-blog-${ACCOUNT}`,
          Key: `site${new URL(req.url).pathname}`,
        }),
      );
      return new Response(await out.Body!.transformToString(), {
        headers: { "content-type": out.ContentType ?? "application/octet-stream" },
      });
    } catch {
      return new Response("<h1>Not found</h1>", { status: 404 });
    }
  };
}

/**
 * The live site's keys (under `site/`, prefix removed), sorted.
 *
 * @param world the running world
 * @param bucket the site bucket
 */
export async function liveKeys(world: InfraWorld, bucket: string): Promise<string[]> {
  const s3 = siteS3(world);
  try {
    const out = await s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: "site/" }));
    return (out.Contents ?? []).map((o) => o.Key!.slice("site/".length)).sort();
  } finally {
    s3.destroy();
  }
}
