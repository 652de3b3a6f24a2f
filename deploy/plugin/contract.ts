/**
 * The contract between the deploy CLI and a plugin: what a plugin package's default export
 * declares. `docs/plugins.md` explains it with the analytics plugin as the example.
 *
 * @module
 */
import type { S3Client } from "@aws-sdk/client-s3";
import type { AwsClientClass } from "../aws/client_factory.ts";
import type { Command, CommandContext } from "../command.ts";
import type { PluginSection } from "../config/plugin_section.ts";
import type { ResourceNode } from "../infra/resource.ts";

/**
 * The site as a plugin command sees it: opened by the core (configuration, account, bucket,
 * tags, and its one AWS client factory), so a plugin never resolves credentials or endpoints
 * itself.
 */
export interface PluginSite extends Disposable {
  /** Environment name. */
  readonly env: string;
  /** The `siteName` key. */
  readonly siteName: string;
  /** The site's `region`. */
  readonly region: string;
  /** The AWS account id. */
  readonly accountId: string;
  /** The site bucket (where the plugin's scoped state lives). */
  readonly bucket: string;
  /** The `app` / `environment` tags every resource gets. */
  readonly tags: Readonly<Record<string, string>>;
  /** Whether the site itself is bootstrapped (`state/<env>.json` exists). */
  readonly bootstrapped: boolean;
  /** S3 in the site bucket's region. */
  readonly s3: S3Client;
  /**
   * Any SDK client, from the core's one factory (endpoints, credentials and region the SDK's
   * way), made once per class, service and region and released with the site.
   *
   * @param make the SDK client class, e.g. `FirehoseClient`
   * @param service the SDK's endpoint suffix, e.g. `FIREHOSE` (`AWS_ENDPOINT_URL_FIREHOSE`)
   * @param region the region
   */
  client<T extends { destroy(): void }>(
    make: AwsClientClass<T>,
    service: string,
    region: string,
  ): T;
}

/** What the core gives a plugin command besides the command context. */
export interface PluginHost {
  /**
   * Opens the site for AWS.
   * @throws {DeployError} config errors, `account_unknown`, AWS failures
   */
  openSite(): Promise<PluginSite>;
}

/** A plugin's command: one `deploy <namespace> <name>` subcommand. */
export interface PluginCommand<Config> extends Omit<Command, "name" | "run"> {
  /** The subcommand (`bootstrap`); the CLI dispatches it as `<namespace> <name>`. */
  readonly name: string;
  /**
   * Does the work with the plugin's section already checked.
   *
   * @param ctx the command context every command gets
   * @param config the resolved section
   * @param host opens the site for AWS
   * @returns an exit code (default 0), or throws a `DeployError`
   */
  run(ctx: CommandContext, config: Config, host: PluginHost): Promise<number | void>;
}

/**
 * A deploy plugin: its section (namespace, summary, config key and schema, the names
 * `deploy config` prints, the error codes it owns), which is data the core reads without
 * running the plugin, then its commands and resource nodes. `Config` is its resolved section;
 * `F`, `C` and `Id` are its resource nodes' facts, clients and ids (it runs them on the core
 * engine, saving `state/<env>.<namespace>.json`).
 */
export interface DeployPlugin<
  Config = unknown,
  F = unknown,
  C = unknown,
  Id extends string = string,
> extends PluginSection {
  /** The plugin's commands, each run with the section checked against `schema`. */
  readonly commands: readonly PluginCommand<Config>[];
  /** The resource nodes it manages, dependencies first. */
  readonly nodes: readonly ResourceNode<F, C, Id>[];
}

/**
 * Whether a module's default export looks like a plugin (the checks a loader can make at run
 * time; the types do the rest at the plugin's build).
 *
 * @param value the default export
 * @returns true when it has a namespace, a config key and schema, error codes and commands
 */
export function isDeployPlugin(value: unknown): value is DeployPlugin {
  const v = value as Partial<DeployPlugin> | null;
  return typeof v === "object" && v !== null && typeof v.namespace === "string" &&
    /^[a-z][a-z0-9-]*$/.test(v.namespace) && typeof v.summary === "string" &&
    typeof v.configKey === "string" && typeof v.schema === "object" && v.schema !== null &&
    v.schema.kind === "object" && Array.isArray(v.errorCodes) &&
    v.errorCodes.every((c) => typeof c === "string") && Array.isArray(v.commands) &&
    Array.isArray(v.nodes);
}
