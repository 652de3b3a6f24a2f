/**
 * What a resource node is: one AWS resource around a site, with a pure description of what
 * it should be, a live read, and create/update/delete. The graph (`graph.ts`) lists the nodes;
 * `reconcile.ts` walks them.
 *
 * @module
 */
import type { Clock } from "@org/shared";
import type { SiteConfig } from "../config/site_config.ts";
import type { NodeOutputs } from "../state/env_state.ts";
import type { AwsClients } from "../aws/clients.ts";
import type { HostedZoneSummary } from "../dns/hosted_zone.ts";
import type { DeployedWait } from "../cdn/distribution_deployed.ts";

/** Node ids, in dependency order. Stable: they key `nodes` in the state file. */
export type NodeId =
  | "bucket"
  | "builderLogGroup"
  | "cdnLogGroup"
  | "oac"
  | "rulesStore"
  | "rewriteFunction"
  | "headersFunction"
  | "headersPolicy"
  | "certificate"
  | "distribution"
  | "cdnLogDelivery"
  | "bucketPolicy"
  | "builderBaseImage"
  | "builderRole"
  | "builderImage"
  | "oidcProvider"
  | "deployRole"
  | "certificateValidation"
  | "wildcardRecords";

/** Everything a desired description may depend on (pure data). */
export interface SiteFacts {
  /** Environment name. */
  readonly env: string;
  /** AWS account id. */
  readonly accountId: string;
  /** The resolved configuration. */
  readonly config: SiteConfig;
  /** The site bucket. */
  readonly bucket: string;
  /** Builder log group name (in `config.region`). */
  readonly builderLogGroup: string;
  /** CDN access-log group name (in us-east-1). */
  readonly cdnLogGroup: string;
  /** Deploy role name. */
  readonly deployRole: string;
  /** `app` / `environment` tags. */
  readonly tags: Readonly<Record<string, string>>;
  /**
   * The managed MicroVM base image to build the builder on (name or ARN), when the operator
   * overrides the default choice (`DEPLOY_BUILDER_BASE_IMAGE`).
   */
  readonly builderBaseImage?: string;
  /**
   * Present for the preview stack (environment `preview`): the preview base domain, and the
   * Route 53 zone enclosing it when `preview bootstrap` found one (`null`: DNS is elsewhere;
   * absent: not looked up, as in `status`, which reads what the state recorded).
   */
  readonly preview?: {
    readonly domain: string;
    readonly zone?: HostedZoneSummary | null;
    /**
     * The router's password check (`previews.password`): `null` when previews are public,
     * absent when not read (as in `status`: the live router's check is kept).
     */
    readonly auth?: PreviewAuth | null;
  };
}

/** A resource as read live: its outputs and how it differs from the desired description. */
export interface LiveResource {
  /** Outputs to record (ids, ARNs, statuses). */
  readonly outputs: NodeOutputs;
  /** One line per differing setting (`retention 30 days, want 90`); empty when in sync. */
  readonly drift: readonly string[];
}

/**
 * What a node's operations get. The type parameters let a plugin's graph run on the same
 * engine with its own facts, clients and node ids; the defaults are the site's.
 */
export interface NodeContext<F = SiteFacts, C = AwsClients, Id extends string = NodeId> {
  /** AWS clients. */
  readonly clients: C;
  /** The site (or the plugin's facts). */
  readonly facts: F;
  /** Outputs of every node so far (recorded, then refreshed by this run), by id. */
  readonly outputs: Readonly<Partial<Record<Id, NodeOutputs>>>;
  /** This node's recorded outputs, if the state has them. */
  readonly recorded: NodeOutputs | undefined;
  /** Tells the user something (a table, a pending step); one call per line. */
  note(text: string): void;
  /** Waits (injected so tests do not sleep). */
  sleep(ms: number): Promise<void>;
  /** Clock for deadlines. */
  readonly clock: Clock;
  /** Bounds of a wait for a distribution to deploy, overriding the node's own (tests shorten it). */
  readonly deployedWait?: DeployedWait;
}

/** One resource around a site (type parameters as {@linkcode NodeContext}). */
export interface ResourceNode<F = SiteFacts, C = AwsClients, Id extends string = NodeId> {
  /** Stable id. */
  readonly id: Id;
  /** Nodes whose outputs this one needs (only those `wanted` count). */
  readonly dependsOn: readonly Id[];
  /** Whether this site wants the resource (a certificate only with a domain, …). */
  wanted(facts: F): boolean;
  /** The resource as the user knows it: `bucket production-blog-123456789012`. */
  label(facts: F): string;
  /**
   * Reads the live resource: by recorded id, else by name, tag or caller reference (so a run
   * that crashed before recording it adopts it). `null` when it does not exist.
   */
  read(ctx: NodeContext<F, C, Id>): Promise<LiveResource | null>;
  /** Creates it; resolves to its outputs. */
  create(ctx: NodeContext<F, C, Id>): Promise<NodeOutputs>;
  /** Brings a drifted resource back to the desired description; resolves to its outputs. */
  update(ctx: NodeContext<F, C, Id>, live: LiveResource): Promise<NodeOutputs>;
  /** Deletes it (`destroy`); `keep` nodes are never deleted. */
  delete(ctx: NodeContext<F, C, Id>, live: LiveResource): Promise<void>;
  /** Why `destroy` leaves this resource in place, when it does (shared by other sites). */
  readonly keep?: string;
  /**
   * A resource another command creates (the builder image, made by the first MicroVM build):
   * `bootstrap` neither creates nor records it; `status` reports it; `destroy` deletes it.
   */
  readonly observed?: boolean;
  /**
   * A "data" node: it only looks something up (the managed base image) and never changes AWS,
   * so bootstrap reports it `unchanged`, never `adopted`.
   */
  readonly readOnly?: boolean;
}

/** What the router checks: a salt and the SHA-256 (hex) of salt + Basic token. */
export interface PreviewAuth {
  /** Per preview stack (the bucket's name), so equal passwords of two sites hash apart. */
  readonly salt: string;
  /** `sha256(salt + base64("preview:<password>"))`, hex. */
  readonly hash: string;
}
