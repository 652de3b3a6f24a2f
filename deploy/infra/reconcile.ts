/**
 * Walking the resource graph: `reconcile` (bootstrap: create what is missing, fix what drifted,
 * adopt what a crashed run left unrecorded, persisting the state after every step), `inspect`
 * (status: read every node, a failure per node not aborting the rest) and `teardown`
 * (destroy: reverse order, persisting what is left after every step).
 *
 * @module
 */
import type { Clock } from "@org/shared";
import { DeployError } from "../errors.ts";
import {
  buildEnvState,
  type EnvState,
  type NodeOutputs,
  type NodeRecord,
  writeEnvState,
} from "../state/env_state.ts";
import type { AwsClients } from "../aws/clients.ts";
import type { DeployedWait } from "../cdn/distribution_deployed.ts";
import { dependencyOrder, SITE_GRAPH } from "./graph.ts";
import { canonicalJson } from "./policy_document.ts";
import type { LiveResource, NodeContext, NodeId, ResourceNode, SiteFacts } from "./resource.ts";

/** The part of a state file the engine reads: every node's record, by node id. */
export interface RecordedState {
  readonly nodes: Readonly<Record<string, NodeRecord>>;
}

/**
 * What a graph walk needs. The type parameters are those of {@linkcode ResourceNode}, plus the
 * state file's type; the defaults are the site's (its graph, clients and `state/<env>.json`).
 */
export interface GraphRun<
  F = SiteFacts,
  C = AwsClients,
  Id extends string = NodeId,
  S extends RecordedState = EnvState,
> {
  /** AWS clients. */
  clients: C;
  /** The site (or a plugin's facts). */
  facts: F;
  /** The state read at the start (null when none). */
  previous: S | null;
  /** Waits (injected). */
  sleep(ms: number): Promise<void>;
  /** Clock (timestamps, deadlines). */
  clock: Clock;
  /** Bounds of a wait for a distribution to deploy, overriding the node's own (tests). */
  deployedWait?: DeployedWait;
  /** Progress and notes for the user, one line per call. */
  note(text: string): void;
  /** The nodes (default {@linkcode SITE_GRAPH}). */
  nodes?: readonly ResourceNode<F, C, Id>[];
  /**
   * Writes the state after the record of node `after` changed (or while none was written yet);
   * resolves to the state written, or null when it cannot be written yet. Default (site runs
   * only): `state/<env>.json` in the site bucket, once the bucket exists.
   */
  save?(records: Record<string, NodeRecord>, after: Id): Promise<S | null>;
}

/** What bootstrap did to one node. */
export type NodeAction = "created" | "updated" | "adopted" | "unchanged";

/** One node's bootstrap result. */
export interface NodeResult<Id extends string = NodeId> {
  id: Id;
  label: string;
  action: NodeAction;
  /** What was fixed (for `updated`). */
  drift: readonly string[];
  outputs: NodeOutputs;
}

/** The bootstrap result. */
export interface ReconcileResult<Id extends string = NodeId, S = EnvState> {
  /** Per node, in the order reconciled. */
  nodes: NodeResult<Id>[];
  /** Whether any AWS resource was created or changed. */
  changed: boolean;
  /** The state as last written. */
  state: S | null;
}

function identity(facts: SiteFacts) {
  return {
    env: facts.env,
    siteName: facts.config.siteName,
    accountId: facts.accountId,
    region: facts.config.region,
    bucket: facts.bucket,
  };
}

/**
 * The site's state writer: `state/<env>.json` lives in the site bucket, so nothing is written
 * before the bucket node ran (or a state was read, which proves the bucket exists).
 */
function siteSave(
  run: GraphRun,
): (records: Record<string, NodeRecord>, after: NodeId) => Promise<EnvState | null> {
  let bucketReady = run.previous !== null;
  return async (records, after) => {
    if (after === "bucket") bucketReady = true;
    if (!bucketReady) return null;
    const state = buildEnvState(
      identity(run.facts),
      records,
      new Date(run.clock.now()),
      run.previous,
    );
    await writeEnvState(run.clients.s3, state);
    return state;
  };
}

/** The run's state writer: its own, or the site's for a site run. */
function saverOf<F, C, Id extends string, S extends RecordedState>(
  run: GraphRun<F, C, Id, S>,
): (records: Record<string, NodeRecord>, after: Id) => Promise<S | null> {
  if (run.save) return run.save.bind(run);
  // Only site runs omit `save` (plugins must give theirs): the defaults are the site's types.
  return siteSave(run as unknown as GraphRun) as unknown as (
    records: Record<string, NodeRecord>,
    after: Id,
  ) => Promise<S | null>;
}

function contextFor<F, C, Id extends string, S extends RecordedState>(
  run: GraphRun<F, C, Id, S>,
  outputs: Partial<Record<Id, NodeOutputs>>,
  recorded: NodeOutputs | undefined,
): NodeContext<F, C, Id> {
  return {
    clients: run.clients,
    facts: run.facts,
    outputs,
    recorded,
    note: run.note,
    sleep: run.sleep,
    clock: run.clock,
    ...(run.deployedWait ? { deployedWait: run.deployedWait } : {}),
  };
}

function outputsFrom<Id extends string>(
  records: Readonly<Record<string, NodeRecord>>,
): Partial<Record<Id, NodeOutputs>> {
  const out: Partial<Record<Id, NodeOutputs>> = {};
  for (const [id, r] of Object.entries(records)) out[id as Id] = r.outputs;
  return out;
}

/** The run's nodes: its own, or the site graph for a site run. */
function nodesOf<F, C, Id extends string, S extends RecordedState>(
  run: GraphRun<F, C, Id, S>,
): ResourceNode<F, C, Id>[] {
  const nodes = run.nodes ?? (SITE_GRAPH as unknown as readonly ResourceNode<F, C, Id>[]);
  return dependencyOrder(nodes);
}

/**
 * Bootstrap: brings every wanted node to its desired description, in dependency order. After
 * every node whose record changed, the state is written to the bucket, so a failure later
 * leaves a state a re-run continues from; resources created but not recorded are adopted by
 * their node's read.
 *
 * @param run clients, site, previous state, sleep, clock, notes
 * @param onNode called after each node (for progress output)
 * @returns what happened per node and the final state
 * @throws {DeployError} the first failing node's error (the state so far is already written)
 */
export async function reconcile<
  F = SiteFacts,
  C = AwsClients,
  Id extends string = NodeId,
  S extends RecordedState = EnvState,
>(
  run: GraphRun<F, C, Id, S>,
  onNode: (result: NodeResult<Id>) => void = () => {},
): Promise<ReconcileResult<Id, S>> {
  const nodes = nodesOf(run).filter((n) => n.wanted(run.facts) && n.observed !== true);
  const records: Record<string, NodeRecord> = { ...(run.previous?.nodes ?? {}) };
  const outputs = outputsFrom<Id>(records);
  const results: NodeResult<Id>[] = [];
  const save = saverOf(run);
  let state = run.previous;
  for (const node of nodes) {
    const recorded = records[node.id]?.outputs;
    const ctx = contextFor(run, outputs, recorded);
    const live: LiveResource | null = await node.read(ctx);
    let action: NodeAction;
    let out: NodeOutputs;
    if (live === null) {
      out = await node.create(ctx);
      action = "created";
    } else if (live.drift.length > 0) {
      out = await node.update(ctx, live);
      action = "updated";
    } else {
      out = live.outputs;
      action = recorded === undefined && node.readOnly !== true ? "adopted" : "unchanged";
    }
    outputs[node.id] = out;
    const dirty = recorded === undefined || canonicalJson(recorded) !== canonicalJson(out);
    if (dirty) {
      records[node.id] = { outputs: out, updatedAt: new Date(run.clock.now()).toISOString() };
    }
    if (dirty || state === null) state = (await save(records, node.id)) ?? state;
    const result: NodeResult<Id> = {
      id: node.id,
      label: node.label(run.facts),
      action,
      drift: action === "updated" ? live!.drift : [],
      outputs: out,
    };
    results.push(result);
    onNode(result);
  }
  return {
    nodes: results,
    changed: results.some((r) => r.action === "created" || r.action === "updated"),
    state,
  };
}

/** A node's live status. */
export type NodeStatus = "present" | "missing" | "drifted" | "error";

/** One node as `status` reports it. */
export interface NodeReport<Id extends string = NodeId> {
  id: Id;
  label: string;
  status: NodeStatus;
  /** Differences from the desired description (for `drifted`). */
  drift: readonly string[];
  /** What the state recorded (null when nothing). */
  recorded: NodeOutputs | null;
  /** What the live read found (null when missing or failed). */
  live: NodeOutputs | null;
  /** The read's failure (for `error`). */
  error?: { code: string; message: string };
  /**
   * Present for resources another command makes (the builder image, made by the first MicroVM
   * deploy): `missing` is then expected until that happens, not a fault.
   */
  optional?: true;
}

/**
 * Status: reads every wanted node (and any recorded one), reporting a read failure on its
 * node without stopping the others.
 *
 * @param run clients, site, state
 * @returns one report per node, in dependency order
 */
export async function inspect<
  F = SiteFacts,
  C = AwsClients,
  Id extends string = NodeId,
  S extends RecordedState = EnvState,
>(run: GraphRun<F, C, Id, S>): Promise<NodeReport<Id>[]> {
  const records = run.previous?.nodes ?? {};
  // An observed node the site does not want (the builder image of a local-builder site) is no
  // news: status reads only what the site wants or the state recorded.
  const nodes = nodesOf(run).filter((n) => n.wanted(run.facts) || records[n.id] !== undefined);
  const outputs = outputsFrom<Id>(records);
  const reports: NodeReport<Id>[] = [];
  for (const node of nodes) {
    const recorded = records[node.id]?.outputs ?? null;
    const base = {
      id: node.id,
      label: node.label(run.facts),
      recorded,
      ...(node.observed === true ? { optional: true as const } : {}),
    };
    try {
      const live = await node.read(contextFor(run, outputs, recorded ?? undefined));
      if (live) outputs[node.id] = live.outputs;
      reports.push({
        ...base,
        status: live === null ? "missing" : live.drift.length > 0 ? "drifted" : "present",
        drift: live?.drift ?? [],
        live: live?.outputs ?? null,
      });
    } catch (err) {
      const e = err instanceof DeployError
        ? err
        : new DeployError("aws_request_failed", err instanceof Error ? err.message : String(err));
      reports.push({
        ...base,
        status: "error",
        drift: [],
        live: null,
        error: { code: e.code, message: e.message },
      });
    }
  }
  return reports;
}

/** What destroy did to one node. */
export interface TeardownResult<Id extends string = NodeId> {
  id: Id;
  label: string;
  action: "deleted" | "absent" | "kept";
  /** Why it was kept. */
  reason?: string;
}

/**
 * Destroy: deletes every node found live, in reverse dependency order (so the distribution
 * goes before the OAC and certificate it uses, and the bucket, holding the state, goes last).
 * After each deletion the state is rewritten without that node while the bucket exists.
 *
 * @param run clients, site, state, sleep, clock, notes
 * @param onNode called after each node
 * @returns what happened per node
 * @throws {DeployError} the first failure (the state reflects what is left)
 */
export async function teardown<
  F = SiteFacts,
  C = AwsClients,
  Id extends string = NodeId,
  S extends RecordedState = EnvState,
>(
  run: GraphRun<F, C, Id, S>,
  onNode: (result: TeardownResult<Id>) => void = () => {},
): Promise<TeardownResult<Id>[]> {
  const records: Record<string, NodeRecord> = { ...(run.previous?.nodes ?? {}) };
  const nodes = nodesOf(run)
    .filter((n) => n.wanted(run.facts) || n.observed === true || records[n.id] !== undefined)
    .reverse();
  const outputs = outputsFrom<Id>(records);
  const save = saverOf(run);
  const results: TeardownResult<Id>[] = [];
  for (const node of nodes) {
    const label = node.label(run.facts);
    let result: TeardownResult<Id>;
    if (node.keep !== undefined) {
      result = { id: node.id, label, action: "kept", reason: node.keep };
    } else {
      const ctx = contextFor(run, outputs, records[node.id]?.outputs);
      const live = await node.read(ctx);
      if (live) await node.delete(ctx, live);
      result = { id: node.id, label, action: live ? "deleted" : "absent" };
      // The site bucket's record goes with the state file it holds.
      if (records[node.id] !== undefined && node.id !== "bucket") {
        delete records[node.id];
        if (run.previous) await save(records, node.id);
      }
    }
    results.push(result);
    onNode(result);
  }
  return results;
}
