/**
 * One IAM role with one inline policy, as a resource node: what the builder role and the
 * deploy role share. Each supplies its name, trust policy and inline policy; this module does
 * the rest the same way for both: create (adopting a role a crashed run created), keep trust,
 * policy and tags in sync, and delete (inline policies first, as IAM requires).
 *
 * @module
 */
import {
  CreateRoleCommand,
  DeleteRoleCommand,
  DeleteRolePolicyCommand,
  GetRoleCommand,
  GetRolePolicyCommand,
  type IAMClient,
  ListRolePoliciesCommand,
  PutRolePolicyCommand,
  TagRoleCommand,
  UpdateAssumeRolePolicyCommand,
} from "@aws-sdk/client-iam";
import { aws, awsErrorCode, awsMaybe } from "../../aws/errors.ts";
import { tagDrift, tagList, tagMap } from "../../aws/tags.ts";
import { type PolicyDocument, samePolicy } from "../policy_document.ts";
import type { AwsClients } from "../../aws/clients.ts";
import type { NodeContext, NodeId, ResourceNode, SiteFacts } from "../resource.ts";

/**
 * What the deploy and builder roles may do to the site's objects under their prefixes: read,
 * write, delete and tag them, and abort the multipart uploads large files go up in (so a failed
 * upload's parts are not billed).
 */
export const SITE_OBJECT_ACTIONS: readonly string[] = [
  "s3:GetObject",
  "s3:PutObject",
  "s3:DeleteObject",
  "s3:GetObjectTagging",
  "s3:PutObjectTagging",
  "s3:AbortMultipartUpload",
];

/**
 * A trust policy for one AWS service principal, on behalf of this account only
 * (`aws:SourceAccount`, against the confused deputy) (pure).
 *
 * @param service the service principal (`lambda.amazonaws.com`)
 * @param accountId the AWS account id
 * @param actions what the service may do with the role (default: assume it)
 * @returns the trust policy
 *
 * @example
 * ```ts
 * serviceTrustPolicy("firehose.amazonaws.com", "123456789012").Statement[0]!.Action;
 * // ["sts:AssumeRole"]
 * ```
 */
export function serviceTrustPolicy(
  service: string,
  accountId: string,
  actions: readonly string[] = ["sts:AssumeRole"],
): PolicyDocument {
  return {
    Version: "2012-10-17",
    Statement: [{
      Effect: "Allow",
      Principal: { Service: service },
      Action: [...actions],
      Condition: { StringEquals: { "aws:SourceAccount": accountId } },
    }],
  };
}

/** What a role node needs of its facts: the tags every resource gets. */
export interface TaggedFacts {
  readonly tags: Readonly<Record<string, string>>;
}

/**
 * What makes one role node different from another. The type parameters are those of
 * {@linkcode ResourceNode} (a plugin's roles use its own facts and ids), needing only tags and
 * an IAM client.
 */
export interface IamRoleSpec<
  F extends TaggedFacts = SiteFacts,
  C extends { readonly iam: IAMClient } = AwsClients,
  Id extends string = NodeId,
> {
  /** The node id. */
  readonly id: Id;
  /** Nodes whose outputs the policies name. */
  readonly dependsOn: readonly Id[];
  /** Whether this site wants the role (default: always). */
  wanted?(facts: F): boolean;
  /** The role's name. */
  roleName(facts: F): string;
  /** The role's description, set at creation. */
  description(ctx: NodeContext<F, C, Id>): string;
  /** The trust policy; may throw (`requireOutput`) when a dependency's output is missing. */
  trustPolicy(ctx: NodeContext<F, C, Id>): PolicyDocument;
  /**
   * Whether the trust policy's inputs are known, so `read` can compare it (`status` may read a
   * role whose dependency is gone); default: always.
   */
  trustKnown?(ctx: NodeContext<F, C, Id>): boolean;
  /** The drift line when the live trust policy differs. */
  trustDrift(facts: F): string;
  /** The inline policy's name. */
  readonly policyName: string;
  /** The inline policy; may throw like {@linkcode IamRoleSpec.trustPolicy}. */
  inlinePolicy(ctx: NodeContext<F, C, Id>): PolicyDocument;
  /** Whether the inline policy's inputs are known (as `trustKnown`); default: always. */
  inlinePolicyKnown?(ctx: NodeContext<F, C, Id>): boolean;
  /** Where the role is used, for its label (`role x (us-east-1)`); default none. */
  readonly labelSuffix?: string;
}

/**
 * A resource node for one IAM role with one inline policy.
 *
 * - `read`: `GetRole` by name; drift when the trust policy, the inline policy (compared as
 *   data) or an `app`/`environment` tag differs.
 * - `create`: `CreateRole` with the trust policy and tags, then `PutRolePolicy`; a role that
 *   already exists (`EntityAlreadyExists`: a crashed run's) is adopted and brought in line.
 * - `update`: trust policy, tags, inline policy.
 * - `delete`: every inline policy, then the role; a missing one is not an error.
 *
 * @param spec what makes this role
 * @returns the node
 *
 * @example
 * ```ts
 * import { iamRoleNode, serviceTrustPolicy } from "./iam_role.ts";
 *
 * const readerRole = iamRoleNode({
 *   id: "readerRole",
 *   dependsOn: ["bucket"],
 *   roleName: (facts) => `${facts.env}-reader`,
 *   description: () => "reads the site bucket",
 *   trustPolicy: (ctx) => serviceTrustPolicy("lambda.amazonaws.com", ctx.facts.accountId),
 *   trustDrift: () => "trust policy is not Lambda",
 *   policyName: "read",
 *   inlinePolicy: (ctx) => ({
 *     Version: "2012-10-17",
 *     Statement: [{
 *       Effect: "Allow",
 *       Action: "s3:GetObject",
 *       Resource: `arn:aws:s3:::${ctx.facts.bucket}/*`,
 *     }],
 *   }),
 * });
 * if (readerRole.id !== "readerRole") throw new Error("the node carries its id");
 * ```
 */
export function iamRoleNode<
  F extends TaggedFacts = SiteFacts,
  C extends { readonly iam: IAMClient } = AwsClients,
  Id extends string = NodeId,
>(spec: IamRoleSpec<F, C, Id>): ResourceNode<F, C, Id> {
  type Ctx = NodeContext<F, C, Id>;
  const putPolicies = async (ctx: Ctx, exists: boolean): Promise<void> => {
    const { iam } = ctx.clients;
    const RoleName = spec.roleName(ctx.facts);
    const resource = `role ${RoleName}`;
    if (exists) {
      await aws({ resource, action: "iam:UpdateAssumeRolePolicy" }, () =>
        iam.send(
          new UpdateAssumeRolePolicyCommand({
            RoleName,
            PolicyDocument: JSON.stringify(spec.trustPolicy(ctx)),
          }),
        ));
      await aws(
        { resource, action: "iam:TagRole" },
        () => iam.send(new TagRoleCommand({ RoleName, Tags: tagList(ctx.facts.tags) })),
      );
    }
    await aws({ resource, action: "iam:PutRolePolicy" }, () =>
      iam.send(
        new PutRolePolicyCommand({
          RoleName,
          PolicyName: spec.policyName,
          PolicyDocument: JSON.stringify(spec.inlinePolicy(ctx)),
        }),
      ));
  };

  const livePolicy = async (iam: IAMClient, RoleName: string): Promise<string | undefined> => {
    const out = await awsMaybe(
      { resource: `role ${RoleName}`, action: "iam:GetRolePolicy" },
      () => iam.send(new GetRolePolicyCommand({ RoleName, PolicyName: spec.policyName })),
    );
    return out?.PolicyDocument;
  };

  return {
    id: spec.id,
    dependsOn: spec.dependsOn,
    wanted: (facts) => spec.wanted?.(facts) ?? true,
    label: (facts) => `role ${spec.roleName(facts)}${spec.labelSuffix ?? ""}`,
    async read(ctx) {
      const { iam } = ctx.clients;
      const RoleName = spec.roleName(ctx.facts);
      const out = await awsMaybe(
        { resource: `role ${RoleName}`, action: "iam:GetRole" },
        () => iam.send(new GetRoleCommand({ RoleName })),
      );
      if (!out?.Role) return null;
      const drift: string[] = [];
      if (spec.trustKnown?.(ctx) ?? true) {
        if (!samePolicy(out.Role.AssumeRolePolicyDocument, spec.trustPolicy(ctx))) {
          drift.push(spec.trustDrift(ctx.facts));
        }
      }
      if (spec.inlinePolicyKnown?.(ctx) ?? true) {
        if (!samePolicy(await livePolicy(iam, RoleName), spec.inlinePolicy(ctx))) {
          drift.push(`inline policy "${spec.policyName}" differs`);
        }
      }
      drift.push(...tagDrift(tagMap(out.Role.Tags), ctx.facts.tags));
      return { outputs: { name: RoleName, arn: out.Role.Arn ?? "" }, drift };
    },
    async create(ctx) {
      const { iam } = ctx.clients;
      const RoleName = spec.roleName(ctx.facts);
      let arn: string | undefined;
      let existed = false;
      await aws({ resource: `role ${RoleName}`, action: "iam:CreateRole" }, async () => {
        try {
          const out = await iam.send(
            new CreateRoleCommand({
              RoleName,
              Description: spec.description(ctx),
              AssumeRolePolicyDocument: JSON.stringify(spec.trustPolicy(ctx)),
              Tags: tagList(ctx.facts.tags),
            }),
          );
          arn = out.Role?.Arn;
        } catch (err) {
          // Created by a run that crashed before recording it: adopt it.
          if (awsErrorCode(err) !== "EntityAlreadyExists") throw err;
          existed = true;
          arn = (await iam.send(new GetRoleCommand({ RoleName }))).Role?.Arn;
        }
      });
      await putPolicies(ctx, existed);
      return { name: RoleName, arn: arn ?? "" };
    },
    async update(ctx, live) {
      await putPolicies(ctx, true);
      return live.outputs;
    },
    async delete(ctx) {
      const { iam } = ctx.clients;
      const RoleName = spec.roleName(ctx.facts);
      const resource = `role ${RoleName}`;
      // IAM refuses to delete a role that still has inline policies.
      const names = await awsMaybe(
        { resource, action: "iam:ListRolePolicies" },
        () => iam.send(new ListRolePoliciesCommand({ RoleName })),
      );
      for (const PolicyName of names?.PolicyNames ?? []) {
        await awsMaybe(
          { resource, action: "iam:DeleteRolePolicy" },
          () => iam.send(new DeleteRolePolicyCommand({ RoleName, PolicyName })),
        );
      }
      await awsMaybe(
        { resource, action: "iam:DeleteRole" },
        () => iam.send(new DeleteRoleCommand({ RoleName })),
      );
    },
  };
}
