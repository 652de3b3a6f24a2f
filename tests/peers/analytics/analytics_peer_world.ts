/**
 * What the analytics peer tests share: a site repo in a temp folder, the CLI as a site runs
 * it (a subprocess under the deploy task's flags plus DuckDB's addon, `AWS_ENDPOINT_URL` at
 * ministack or a recording proxy in front of it, ministack's `FAKE_ROUTES` on our fakes), and
 * the table opened the product's way.
 *
 * @module
 */
import { join } from "node:path";
import { duckdbEndpoints } from "../../../analytics/queries/endpoints.ts";
import { openS3TablesSource } from "../../../analytics/queries/s3_tables_source.ts";
import type { PageViewSource } from "../../../analytics/queries/source.ts";
import { deployTaskFlags, runDeployProcess } from "../../deploy/deploy_process.ts";
import type { startAwsFakes } from "../../fakes/aws.ts";
import type { AwsEmulator } from "../support/aws_emulator.ts";
import { FAKE_ROUTES } from "../aws/peer_world.ts";

const WORKSPACE = new URL("../../../", import.meta.url).pathname;

/**
 * A site repo in a new temp folder: `.git` and `config/production.jsonc` (`blog`, us-east-1).
 *
 * @param prefix the temp folder's prefix
 * @param extra more configuration keys
 * @returns the folder (the caller removes it)
 */
export async function makeSiteRoot(
  prefix: string,
  extra: Record<string, unknown> = {},
): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix }));
  await Deno.mkdir(join(root, ".git"));
  await Deno.mkdir(join(root, "config"));
  await Deno.writeTextFile(
    join(root, "config", "production.jsonc"),
    JSON.stringify({ siteName: "blog", region: "us-east-1", app: "blog", ...extra }),
  );
  return root;
}

/** The CLI as a site runs it, and what it runs with. */
export interface PeerCli {
  /** The Deno flags (the dashboard process takes them too). */
  readonly flags: string[];
  /** The environment: ministack, our fakes' routes, and HOME. */
  readonly env: Record<string, string>;
  /** Runs `deploy <args>` in the site repo. */
  cli(...args: string[]): ReturnType<typeof runDeployProcess>;
}

/**
 * The CLI in the site repo: the task's flags, plus the packages (a site's come from Deno's
 * cache) and DuckDB's addon; HOME holds the extensions where DuckDB looks (~/.duckdb/extensions).
 *
 * @param ministack the emulator
 * @param fakes our fakes, for ministack's `FAKE_ROUTES`
 * @param extensionsHome the HOME holding DuckDB's extensions
 * @param root the site repo
 * @param endpoint the CLI's `AWS_ENDPOINT_URL` (a recording proxy in front of ministack);
 *   ministack's own by default
 * @returns the flags, the environment, and a runner
 */
export async function peerCli(
  ministack: AwsEmulator,
  fakes: ReturnType<typeof startAwsFakes>,
  extensionsHome: string,
  root: string,
  endpoint: string = ministack.endpoint,
): Promise<PeerCli> {
  const flags = [
    ...(await deployTaskFlags(extensionsHome)).map((f) =>
      f.startsWith("--allow-read=") ? `${f},${WORKSPACE}` : f
    ),
    `--allow-ffi=${WORKSPACE}node_modules`,
  ];
  const env = {
    ...ministack.env,
    AWS_ENDPOINT_URL: endpoint,
    ...Object.fromEntries(FAKE_ROUTES.ministack.map((r) => {
      const name = `AWS_ENDPOINT_URL_${r.service}`;
      return [name, fakes.endpointEnv[name]!];
    })),
    HOME: extensionsHome,
  };
  const cli = (...args: string[]) => runDeployProcess({ flags, args, cwd: root, env });
  return { flags, env, cli };
}

/**
 * Opens the site's table the product's way (endpoint override, the wheels' extensions).
 *
 * @param ministack the emulator
 * @param extensionDirectory DuckDB's extension folder
 * @param tableBucketArn the table bucket
 * @param fn what to do with it; the source is closed after
 */
export async function withTable(
  ministack: AwsEmulator,
  extensionDirectory: string,
  tableBucketArn: string,
  fn: (source: PageViewSource) => Promise<void>,
): Promise<void> {
  using source = await openS3TablesSource(
    { tableBucketArn, region: "us-east-1", namespace: "web", table: "page_views" },
    { accessKeyId: "test", secretAccessKey: "test" },
    { download: false, extensionDirectory, endpoints: duckdbEndpoints(ministack.env) },
  );
  await fn(source);
}
