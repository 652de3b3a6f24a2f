/**
 * Reading another node's outputs from a node's context, failing clearly when a dependency has
 * not produced them (a graph-order bug, or `status` reading a node whose dependency is gone).
 *
 * @module
 */
import { DeployError } from "../../errors.ts";
import type { NodeOutputs } from "../../state/env_state.ts";

/** The part of a node context these read: the outputs of the nodes so far, by id. */
export interface OutputsOf<Id extends string> {
  readonly outputs: Readonly<Partial<Record<Id, NodeOutputs>>>;
}

/**
 * A string output of another node.
 *
 * @param ctx the node context
 * @param node the dependency
 * @param key the output key
 * @param bootstrap the command that creates it (a plugin's own bootstrap)
 * @returns the value
 * @throws {DeployError} `aws_request_failed` when the dependency has no such output
 */
export function requireOutput<Id extends string>(
  ctx: OutputsOf<Id>,
  node: Id,
  key: string,
  bootstrap = "deploy bootstrap",
): string {
  const value = ctx.outputs[node]?.[key];
  if (typeof value !== "string" || value === "") {
    throw new DeployError("aws_request_failed", `the ${node} does not exist yet (no ${key})`, {
      hint: `run \`${bootstrap}\` to create it`,
    });
  }
  return value;
}

/**
 * A string output of another node, or undefined.
 *
 * @param ctx the node context
 * @param node the dependency
 * @param key the output key
 * @returns the value when present
 */
export function optionalOutput<Id extends string>(
  ctx: OutputsOf<Id>,
  node: Id,
  key: string,
): string | undefined {
  const value = ctx.outputs[node]?.[key];
  return typeof value === "string" && value !== "" ? value : undefined;
}
