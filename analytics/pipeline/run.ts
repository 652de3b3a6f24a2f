/**
 * Running the analytics graph on the core engine: bootstrap (reconcile, saving the scoped state
 * `state/<env>.analytics.json` after every step), status (inspect every node), destroy
 * (teardown in reverse, then the state file goes).
 *
 * @module
 */
import type { Clock } from "@org/shared";
import {
  buildScopedState,
  deleteScopedState,
  DeployError,
  inspect,
  type NodeReport,
  type NodeResult,
  readScopedState,
  reconcile,
  type ReconcileResult,
  type ScopedState,
  type ScopedStateLocation,
  teardown,
  type TeardownResult,
  writeScopedState,
} from "@org/deploy/plugin";
import type { AnalyticsClients, AnalyticsFacts, AnalyticsNode, AnalyticsNodeId } from "./facts.ts";
import { ANALYTICS_GRAPH } from "./graph.ts";
import { ANALYTICS_BOOTSTRAP } from "./nodes/roles.ts";
import { ANALYTICS_NAMESPACE } from "../section.ts";

/** What a pipeline run needs. */
export interface PipelineRun {
  /** The us-east-1 clients. */
  readonly clients: AnalyticsClients;
  /** The pipeline's facts. */
  readonly facts: AnalyticsFacts;
  /** The site bucket and its S3 client, where the scoped state lives. */
  readonly state: Omit<ScopedStateLocation, "namespace" | "env">;
  /** Waits (injected so tests do not sleep). */
  sleep(ms: number): Promise<void>;
  /** Clock (timestamps, deadlines). */
  readonly clock: Clock;
  /** Tells the user something, one line per call. */
  note(text: string): void;
  /** The nodes (default the whole graph; tests pass fewer). */
  readonly nodes?: readonly AnalyticsNode[];
}

function location(run: PipelineRun): ScopedStateLocation {
  return { ...run.state, env: run.facts.env, namespace: ANALYTICS_NAMESPACE };
}

/**
 * Reads the pipeline's state; null when it was never bootstrapped (or was destroyed).
 *
 * @param run the run
 * @returns the state or null
 */
export function readPipelineState(run: PipelineRun): Promise<ScopedState | null> {
  return readScopedState(location(run), ANALYTICS_BOOTSTRAP);
}

function graphRun(run: PipelineRun, previous: ScopedState | null) {
  const at = location(run);
  return {
    clients: run.clients,
    facts: run.facts,
    previous,
    sleep: run.sleep,
    clock: run.clock,
    note: run.note,
    nodes: run.nodes ?? ANALYTICS_GRAPH,
    async save(records: ScopedState["nodes"]) {
      const state = buildScopedState(
        at,
        run.facts.accountId,
        records,
        new Date(run.clock.now()),
        previous,
      );
      await writeScopedState(at, state);
      return state;
    },
  };
}

/**
 * Bootstrap: creates what is missing, fixes what drifted, adopts what a crashed run left.
 *
 * @param run the run
 * @param onNode called after each node
 * @returns what happened per node
 */
export async function bootstrapPipeline(
  run: PipelineRun,
  onNode: (result: NodeResult<AnalyticsNodeId>) => void = () => {},
): Promise<ReconcileResult<AnalyticsNodeId, ScopedState>> {
  const previous = await readPipelineState(run);
  return await reconcile<AnalyticsFacts, AnalyticsClients, AnalyticsNodeId, ScopedState>(
    graphRun(run, previous),
    onNode,
  );
}

/**
 * Status: every node present, missing, drifted (or failing to read). A state file that cannot
 * be read is reported, not fatal: the resources are read by name anyway.
 *
 * @param run the run
 * @returns the state read (null when none or unreadable, with why) and one report per node
 */
export async function inspectPipeline(run: PipelineRun): Promise<{
  state: ScopedState | null;
  stateError?: string;
  reports: NodeReport<AnalyticsNodeId>[];
}> {
  let state: ScopedState | null = null;
  let stateError: string | undefined;
  try {
    state = await readPipelineState(run);
  } catch (err) {
    if (!(err instanceof DeployError) || err.code !== "state_invalid") throw err;
    stateError = err.message;
  }
  const reports = await inspect<AnalyticsFacts, AnalyticsClients, AnalyticsNodeId, ScopedState>(
    graphRun(run, state),
  );
  return { state, ...(stateError ? { stateError } : {}), reports };
}

/**
 * Destroy: deletes every node but the kept ones (the salt secret, the catalog), in reverse
 * order, then the state file.
 *
 * @param run the run
 * @param onNode called after each node
 * @returns what happened per node
 */
export async function destroyPipeline(
  run: PipelineRun,
  onNode: (result: TeardownResult<AnalyticsNodeId>) => void = () => {},
): Promise<TeardownResult<AnalyticsNodeId>[]> {
  // An unreadable state file must not block removal: the nodes find their resources by name.
  const previous = await readPipelineState(run).catch((err) => {
    if (err instanceof DeployError && err.code === "state_invalid") return null;
    throw err;
  });
  const results = await teardown<AnalyticsFacts, AnalyticsClients, AnalyticsNodeId, ScopedState>(
    graphRun(run, previous),
    onNode,
  );
  await deleteScopedState(location(run));
  return results;
}
