/**
 * What `history`, `logs` and `rollback` share: the site bucket, the AWS clients, and the
 * environment state fields they read from `state/<env>.json` (written by `bootstrap`).
 *
 * @module
 */
import type { CommandContext } from "../cli/command.ts";
import type { LoadedSite } from "../config/load.ts";
import { type BuildStoreLocation, getText } from "../builds/store.ts";
import { DeployError } from "../errors.ts";
import { type BuildClients, createBuildClients } from "../microvm/clients.ts";
import type { BuilderImageSettings } from "../microvm/image.ts";
import { stateKey } from "../state/bucket_layout.ts";

/** The site, its bucket and clients. */
export interface BuildContext {
  /** The loaded configuration. */
  readonly site: LoadedSite;
  /** The site bucket. */
  readonly bucket: string;
  /** AWS clients in the site's region. */
  readonly clients: BuildClients;
  /** Bucket and S3 client together. */
  readonly store: BuildStoreLocation;
}

/**
 * Loads the site and creates the clients.
 *
 * @param ctx the command context
 * @returns the build context
 * @throws DeployError `account_unknown` when the bucket name cannot be derived
 */
export async function buildContext(ctx: CommandContext): Promise<BuildContext> {
  // The account id (AWS_ACCOUNT_ID, else STS) must be known before the site, or its bucket
  // name cannot be derived.
  await ctx.accountId();
  const site = await ctx.site();
  const bucket = site.names.bucket;
  if (bucket === null) {
    throw new DeployError("account_unknown", "the AWS account id is unknown, so is the bucket", {
      hint: "set AWS_ACCOUNT_ID, or configure AWS credentials",
    });
  }
  const clients = createBuildClients(site.config.region, ctx.environ);
  return { site, bucket, clients, store: { s3: clients.s3, bucket } };
}

/**
 * The fields of `state/<env>.json` the build commands read. `bootstrap` owns the file
 * (`EnvState`, whose `builder` section `buildEnvState` derives); these names are the contract: `distributionId` and
 * `distributionDomain` for the CDN, `builder` for the MicroVM builder image.
 */
export interface EnvironmentStateView {
  /** The CloudFront distribution id. */
  readonly distributionId?: string;
  /** The CloudFront domain (`d111.cloudfront.net`), the origin when no `domain` is set. */
  readonly distributionDomain?: string;
  /** Builder image settings. */
  readonly builder?: Partial<BuilderImageSettings>;
}

/**
 * Reads `state/<env>.json` as plain JSON, field by field. Deliberately lenient about which
 * fields are there (unlike `readEnvState`, which insists on a full version-1 state): these
 * commands need only the few fields below, so a hand-written or partial state that names them
 * is enough. A file that is not a JSON object is an error, though, never "no state": read as
 * empty it would send the user to re-bootstrap an environment that exists.
 *
 * @param store bucket and client
 * @param env environment name
 * @returns the fields, or `{}` when there is no state yet
 * @throws DeployError `state_invalid` when the file is not a JSON object
 */
export async function readEnvironmentState(
  store: BuildStoreLocation,
  env: string,
): Promise<EnvironmentStateView> {
  const key = stateKey(env);
  const text = await getText(store, key);
  if (text === undefined) return {};
  return environmentStateView(parseEnvironmentState(text, `s3://${store.bucket}/${key}`));
}

/**
 * Parses a state file's text (pure).
 *
 * @param text the file's contents
 * @param where the object's `s3://bucket/key`, for the message
 * @returns the parsed JSON object
 * @throws DeployError `state_invalid` when it is not JSON or not an object
 */
export function parseEnvironmentState(text: string, where: string): Record<string, unknown> {
  let raw: unknown;
  let problem: string | undefined;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    problem = `is not valid JSON (${err instanceof Error ? err.message : String(err)})`;
  }
  if (problem === undefined && (raw === null || typeof raw !== "object" || Array.isArray(raw))) {
    problem = "is not a JSON object";
  }
  if (problem !== undefined) {
    throw new DeployError("state_invalid", `${where} ${problem}`, {
      // The same advice as readEnvState gives for the same file.
      hint: "run `deploy bootstrap` to rewrite it (it adopts the existing resources)",
    });
  }
  return raw as Record<string, unknown>;
}

/**
 * The build commands' view of a parsed state file (pure): the non-empty string fields among
 * `distributionId`, `distributionDomain` and `builder.{baseImageArn, buildRoleArn,
 * executionRoleArn}` (the fields `buildEnvState` derives for `EnvState`).
 *
 * @param raw the parsed state (an `EnvState`, or any JSON)
 * @returns its distribution and builder fields
 */
export function environmentStateView(raw: unknown): EnvironmentStateView {
  const obj = (v: unknown): Record<string, unknown> =>
    v !== null && typeof v === "object" ? v as Record<string, unknown> : {};
  const str = (v: unknown) => typeof v === "string" && v !== "" ? v : undefined;
  const top = obj(raw);
  const b = obj(top.builder);
  const builder: Partial<BuilderImageSettings> = {
    ...(str(b.baseImageArn) ? { baseImageArn: str(b.baseImageArn)! } : {}),
    ...(str(b.buildRoleArn) ? { buildRoleArn: str(b.buildRoleArn)! } : {}),
    ...(str(b.executionRoleArn) ? { executionRoleArn: str(b.executionRoleArn)! } : {}),
  };
  return {
    ...(str(top.distributionId) ? { distributionId: str(top.distributionId)! } : {}),
    ...(str(top.distributionDomain) ? { distributionDomain: str(top.distributionDomain)! } : {}),
    builder,
  };
}

/**
 * The builder image settings a MicroVM build needs, from the state (pure).
 *
 * @param view the state's fields
 * @param env environment name (for the message)
 * @returns base image and roles
 * @throws DeployError `builder_not_configured` when bootstrap has not recorded them
 */
export function requireBuilderSettings(
  view: EnvironmentStateView,
  env: string,
): BuilderImageSettings {
  const b = view.builder ?? {};
  if (!b.baseImageArn || !b.buildRoleArn) {
    throw new DeployError(
      "builder_not_configured",
      `state/${env}.json has no builder.baseImageArn/builder.buildRoleArn`,
      { hint: `run \`deploy bootstrap ${env}\` to set up the MicroVM builder` },
    );
  }
  return {
    baseImageArn: b.baseImageArn,
    buildRoleArn: b.buildRoleArn,
    ...(b.executionRoleArn ? { executionRoleArn: b.executionRoleArn } : {}),
  };
}

/**
 * Formats milliseconds for people: `850 ms`, `42 s`, `3m 05s`, `1h 02m`.
 *
 * @param ms a duration
 * @returns the text
 */
export function humanDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, "0")}m`;
}
