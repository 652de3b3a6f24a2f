/**
 * The transform Lambda (`<env>-<siteName>-analytics-transform`, us-east-1): the committed
 * bundle as its code, the transform role, and the salt secret's ARN in its environment. Drift
 * covers the code (by `CodeSha256`: the package is reproducible, so a changed hash means
 * changed code), the settings and the tags.
 *
 * @module
 */
import {
  CreateFunctionCommand,
  DeleteFunctionCommand,
  type FunctionConfiguration,
  GetFunctionCommand,
  GetFunctionConfigurationCommand,
  TagResourceCommand,
  UpdateFunctionCodeCommand,
  UpdateFunctionConfigurationCommand,
} from "@aws-sdk/client-lambda";
import {
  aws,
  awsErrorCode,
  awsFailure,
  awsMaybe,
  type NodeOutputs,
  requireOutput,
  tagDrift,
} from "@org/deploy/plugin";
import { SALT_SECRET_ENV } from "../../transform/lambda_handler.ts";
import {
  TRANSFORM_HANDLER,
  TRANSFORM_RUNTIME,
  transformPackage,
} from "../../transform/lambda_package.ts";
import type { AnalyticsContext, AnalyticsFacts, AnalyticsNode } from "../facts.ts";
import { ANALYTICS_REGION } from "../names.ts";
import { whileRolePropagates } from "../role_propagation.ts";
import { ANALYTICS_BOOTSTRAP } from "./roles.ts";

/** The function's settings (pure data). */
export interface TransformFunctionSpec {
  readonly name: string;
  readonly runtime: string;
  readonly handler: string;
  readonly role: string;
  /** Seconds; Firehose allows a transform up to 5 minutes, batches take well under one. */
  readonly timeout: number;
  readonly memorySize: number;
  readonly environment: Readonly<Record<string, string>>;
  /** `CodeSha256` of the package. */
  readonly codeSha256: string;
}

/**
 * The function's description (pure).
 *
 * @param facts the pipeline
 * @param roleArn the transform role's ARN
 * @param secretArn the salt secret's ARN
 * @param codeSha256 the package's hash
 * @returns the settings
 */
export function transformFunctionSpec(
  facts: AnalyticsFacts,
  roleArn: string,
  secretArn: string,
  codeSha256: string,
): TransformFunctionSpec {
  return {
    name: facts.names.transformFunction,
    runtime: TRANSFORM_RUNTIME,
    handler: TRANSFORM_HANDLER,
    role: roleArn,
    timeout: 60,
    memorySize: 256,
    environment: { [SALT_SECRET_ENV]: secretArn },
    codeSha256,
  };
}

/**
 * How the live configuration differs from the description (pure), split by what fixes it.
 *
 * @param spec the description
 * @param live the live configuration
 * @returns the differing settings and whether the code differs
 */
export function transformFunctionDrift(
  spec: TransformFunctionSpec,
  live: FunctionConfiguration,
): { settings: string[]; code: boolean } {
  const settings: string[] = [];
  const check = (what: string, have: unknown, want: unknown) => {
    if (have !== want) settings.push(`${what} ${String(have ?? "(none)")}, want ${String(want)}`);
  };
  check("runtime", live.Runtime, spec.runtime);
  check("handler", live.Handler, spec.handler);
  check("role", live.Role, spec.role);
  check("timeout", live.Timeout, spec.timeout);
  check("memory", live.MemorySize, spec.memorySize);
  const env = live.Environment?.Variables ?? {};
  const wantEnv = Object.entries(spec.environment);
  if (
    Object.keys(env).length !== wantEnv.length || wantEnv.some(([k, v]) => env[k] !== v)
  ) settings.push("environment differs");
  return { settings, code: live.CodeSha256 !== spec.codeSha256 };
}

const label = (facts: AnalyticsFacts) =>
  `function ${facts.names.transformFunction} (${ANALYTICS_REGION})`;
const at = (facts: AnalyticsFacts, action: string) => ({ resource: label(facts), action });

function desired(ctx: AnalyticsContext): TransformFunctionSpec {
  return transformFunctionSpec(
    ctx.facts,
    requireOutput(ctx, "transformRole", "arn", ANALYTICS_BOOTSTRAP),
    requireOutput(ctx, "saltSecret", "arn", ANALYTICS_BOOTSTRAP),
    transformPackage().sha256,
  );
}

function settingsOf(spec: TransformFunctionSpec) {
  return {
    Runtime: spec.runtime as never,
    Handler: spec.handler,
    Role: spec.role,
    Timeout: spec.timeout,
    MemorySize: spec.memorySize,
    Environment: { Variables: { ...spec.environment } },
  };
}

const outputs = (spec: TransformFunctionSpec, arn: string): NodeOutputs => ({
  name: spec.name,
  arn,
  codeSha256: spec.codeSha256,
});

/**
 * Runs a call that names a role Lambda may not be able to assume yet (IAM is eventually
 * consistent: a role made a second ago is often refused).
 */
function withRoleRetry<T>(ctx: AnalyticsContext, call: () => Promise<T>): Promise<T> {
  return whileRolePropagates(
    ctx.sleep,
    (err) =>
      awsErrorCode(err) === "InvalidParameterValueException" &&
      /cannot be assumed/i.test((err as Error).message),
    call,
  );
}

/** Waits while a previous update is still being applied (Lambda refuses a second meanwhile). */
async function settled(ctx: AnalyticsContext, name: string): Promise<void> {
  for (let i = 0; i < 30; i++) {
    const c = await aws(
      at(ctx.facts, "lambda:GetFunctionConfiguration"),
      () => ctx.clients.lambda.send(new GetFunctionConfigurationCommand({ FunctionName: name })),
    );
    if (c.LastUpdateStatus !== "InProgress" && c.State !== "Pending") return;
    await ctx.sleep(1000);
  }
}

async function converge(
  ctx: AnalyticsContext,
  spec: TransformFunctionSpec,
  live: { config: FunctionConfiguration; tags: Record<string, string> },
): Promise<NodeOutputs> {
  const drift = transformFunctionDrift(spec, live.config);
  const lambda = ctx.clients.lambda;
  if (drift.settings.length > 0) {
    await settled(ctx, spec.name);
    await aws(
      at(ctx.facts, "lambda:UpdateFunctionConfiguration"),
      () =>
        withRoleRetry(ctx, () =>
          lambda.send(
            new UpdateFunctionConfigurationCommand({
              FunctionName: spec.name,
              ...settingsOf(spec),
            }),
          )),
    );
  }
  if (drift.code) {
    await settled(ctx, spec.name);
    await aws(
      at(ctx.facts, "lambda:UpdateFunctionCode"),
      () =>
        lambda.send(
          new UpdateFunctionCodeCommand({
            FunctionName: spec.name,
            ZipFile: transformPackage().zip,
          }),
        ),
    );
  }
  const arn = live.config.FunctionArn ?? "";
  if (tagDrift(live.tags, ctx.facts.tags).length > 0) {
    await aws(
      at(ctx.facts, "lambda:TagResource"),
      () => lambda.send(new TagResourceCommand({ Resource: arn, Tags: { ...ctx.facts.tags } })),
    );
  }
  return outputs(spec, arn);
}

async function getFunction(ctx: AnalyticsContext) {
  const out = await awsMaybe(
    at(ctx.facts, "lambda:GetFunction"),
    () =>
      ctx.clients.lambda.send(
        new GetFunctionCommand({ FunctionName: ctx.facts.names.transformFunction }),
      ),
  );
  return out?.Configuration ? { config: out.Configuration, tags: out.Tags ?? {} } : undefined;
}

/** The transform function node. */
export const transformFunctionNode: AnalyticsNode = {
  id: "transform",
  dependsOn: ["transformRole", "saltSecret", "transformLogGroup"],
  wanted: () => true,
  label,
  async read(ctx) {
    const live = await getFunction(ctx);
    if (!live) return null;
    const roleArn = ctx.outputs.transformRole?.arn;
    const secretArn = ctx.outputs.saltSecret?.arn;
    const arn = live.config.FunctionArn ?? "";
    const codeSha256 = transformPackage().sha256;
    // `status` may read the function while a dependency is gone: compare what is known.
    if (typeof roleArn !== "string" || typeof secretArn !== "string") {
      return {
        outputs: { name: ctx.facts.names.transformFunction, arn, codeSha256 },
        drift: tagDrift(live.tags, ctx.facts.tags),
      };
    }
    const spec = transformFunctionSpec(ctx.facts, roleArn, secretArn, codeSha256);
    const drift = transformFunctionDrift(spec, live.config);
    return {
      outputs: outputs(spec, arn),
      drift: [
        ...drift.settings,
        ...(drift.code ? [`code ${live.config.CodeSha256}, want ${spec.codeSha256}`] : []),
        ...tagDrift(live.tags, ctx.facts.tags),
      ],
    };
  },
  async create(ctx) {
    const spec = desired(ctx);
    try {
      const made = await withRoleRetry(ctx, () =>
        ctx.clients.lambda.send(
          new CreateFunctionCommand({
            FunctionName: spec.name,
            ...settingsOf(spec),
            Code: { ZipFile: transformPackage().zip },
            Description: `Maps CloudFront log records to page-view rows (${ctx.facts.env})`,
            Tags: { ...ctx.facts.tags },
          }),
        ));
      return outputs(spec, made.FunctionArn ?? "");
    } catch (err) {
      if (awsErrorCode(err) !== "ResourceConflictException") {
        throw awsFailure(err, at(ctx.facts, "lambda:CreateFunction"));
      }
      // A crashed run created it: adopt it and bring it in line.
      const live = await getFunction(ctx);
      if (!live) throw awsFailure(err, at(ctx.facts, "lambda:CreateFunction"));
      return await converge(ctx, spec, live);
    }
  },
  async update(ctx) {
    const live = await getFunction(ctx);
    if (!live) return await transformFunctionNode.create(ctx);
    return await converge(ctx, desired(ctx), live);
  },
  async delete(ctx) {
    await awsMaybe(
      at(ctx.facts, "lambda:DeleteFunction"),
      () =>
        ctx.clients.lambda.send(
          new DeleteFunctionCommand({ FunctionName: ctx.facts.names.transformFunction }),
        ),
    );
  },
};
