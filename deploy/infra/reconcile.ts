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
import { dependencyOrder, SITE_GRAPH } from "./graph.ts";
import { canonicalJson } from "./policy_document.ts";
import type { LiveResource, NodeContext, NodeId, ResourceNode, SiteFacts } from "./resource.ts";

/** What a graph walk needs. */
export interface GraphRun {
  /** AWS clients. */
  clients: AwsClients;
  /** The site. */
  facts: SiteFacts;
  /** The state read at the start (null when none). */
  previous: EnvState | null;
  /** Waits (injected). */
  sleep(ms: number): Promise<void>;
  /** Clock (timestamps, deadlines). */
  clock: Clock;
  /** Progress and notes for the user, one line per call. */
  note(text: string): void;
  /** The nodes (default {@linkcode SITE_GRAPH}). */
  nodes?: readonly ResourceNode[];
}

/** What bootstrap did to one node. */
export type NodeAction = "created" | "updated" | "adopted" | "unchanged";

/** One node's bootstrap result. */
export interface NodeResult {
  id: NodeId;
  label: string;
  action: NodeAction;
  /** What was fixed (for `updated`). */
  drift: readonly string[];
  outputs: NodeOutputs;
}

/** The bootstrap result. */
export interface ReconcileResult {
  /** Per node, in the order reconciled. */
  nodes: NodeResult[];
  /** Whether any AWS resource was created or changed. */
  changed: boolean;
  /** The state as last written. */
  state: EnvState | null;
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

function contextFor(
  run: GraphRun,
  outputs: Partial<Record<NodeId, NodeOutputs>>,
  recorded: NodeOutputs | undefined,
): NodeContext {
  return {
    clients: run.clients,
    facts: run.facts,
    outputs,
    recorded,
    note: run.note,
    sleep: run.sleep,
    clock: run.clock,
  };
}

function outputsFrom(records: Record<string, NodeRecord>): Partial<Record<NodeId, NodeOutputs>> {
  const out: Partial<Record<NodeId, NodeOutputs>> = {};
  for (const [id, r] of Object.entries(records)) out[id as NodeId] = r.outputs;
  return out;
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
export async function reconcile(
  run: GraphRun,
  onNode: (result: NodeResult) => void = () => {},
): Promise<ReconcileResult> {
  const nodes = dependencyOrder(run.nodes ?? SITE_GRAPH)
    .filter((n) => n.wanted(run.facts) && n.observed !== true);
  const records: Record<string, NodeRecord> = { ...(run.previous?.nodes ?? {}) };
  const outputs = outputsFrom(records);
  const results: NodeResult[] = [];
  let state = run.previous;
  let bucketReady = false;
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
    if (node.id === "bucket") bucketReady = true;
    const dirty = recorded === undefined || canonicalJson(recorded) !== canonicalJson(out);
    if (dirty) {
      records[node.id] = { outputs: out, updatedAt: new Date(run.clock.now()).toISOString() };
    }
    if (bucketReady && (dirty || state === null)) {
      state = buildEnvState(identity(run.facts), records, new Date(run.clock.now()), run.previous);
      await writeEnvState(run.clients.s3, state);
    }
    const result: NodeResult = {
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
export interface NodeReport {
  id: NodeId;
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
export async function inspect(run: GraphRun): Promise<NodeReport[]> {
  const records = run.previous?.nodes ?? {};
  const nodes = dependencyOrder(run.nodes ?? SITE_GRAPH)
    .filter((n) => n.wanted(run.facts) || n.observed === true || records[n.id] !== undefined);
  const outputs = outputsFrom(records);
  const reports: NodeReport[] = [];
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
export interface TeardownResult {
  id: NodeId;
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
export async function teardown(
  run: GraphRun,
  onNode: (result: TeardownResult) => void = () => {},
): Promise<TeardownResult[]> {
  const records: Record<string, NodeRecord> = { ...(run.previous?.nodes ?? {}) };
  const nodes = dependencyOrder(run.nodes ?? SITE_GRAPH)
    .filter((n) => n.wanted(run.facts) || n.observed === true || records[n.id] !== undefined)
    .reverse();
  const outputs = outputsFrom(records);
  const results: TeardownResult[] = [];
  for (const node of nodes) {
    const label = node.label(run.facts);
    let result: TeardownResult;
    if (node.keep !== undefined) {
      result = { id: node.id, label, action: "kept", reason: node.keep };
    } else {
      const ctx = contextFor(run, outputs, records[node.id]?.outputs);
      const live = await node.read(ctx);
      if (live) await node.delete(ctx, live);
      result = { id: node.id, label, action: live ? "deleted" : "absent" };
      if (records[node.id] !== undefined && node.id !== "bucket") {
        delete records[node.id];
        if (run.previous) {
          await writeEnvState(
            run.clients.s3,
            buildEnvState(identity(run.facts), records, new Date(run.clock.now()), run.previous),
          );
        }
      }
    }
    results.push(result);
    onNode(result);
  }
  return results;
}
