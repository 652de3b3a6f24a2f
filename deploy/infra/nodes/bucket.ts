/**
 * The site bucket `<env>-<siteName>-<accountId>`: private, every public-access block on,
 * object ownership enforced (ACLs disabled), tagged `app`/`environment`, a lifecycle rule
 * that removes the parts of multipart uploads never completed (a deploy killed mid-upload
 * cannot abort its own), and one that expires kept build outputs after twice
 * `retention.buildsDays` (what `rollback` restores from). Its policy is a separate node (`bucket_policy.ts`) because it names
 * the distribution, which needs the bucket.
 *
 * @module
 */
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectsCommand,
  GetBucketLifecycleConfigurationCommand,
  GetBucketOwnershipControlsCommand,
  GetBucketTaggingCommand,
  GetPublicAccessBlockCommand,
  HeadBucketCommand,
  type LifecycleRule,
  ListObjectsV2Command,
  PutBucketLifecycleConfigurationCommand,
  PutBucketOwnershipControlsCommand,
  PutBucketTaggingCommand,
  PutPublicAccessBlockCommand,
  type S3Client,
} from "@aws-sdk/client-s3";
import { DeployError } from "../../errors.ts";
import {
  aws,
  awsErrorCode,
  awsFailure,
  awsHttpStatus,
  awsMaybe,
  isNotFound,
} from "../../aws/errors.ts";
import { tagDrift, tagList, tagMap } from "../../aws/tags.ts";
import type { AwsClients } from "../../aws/clients.ts";
import type { NodeContext, NodeId, ResourceNode, SiteFacts } from "../resource.ts";
import type { TaggedFacts } from "./iam_role.ts";
import { BUILD_CACHE_PREFIX, outputExpiryDays, OUTPUTS_PREFIX } from "../../state/bucket_layout.ts";

/** The public-access block the bucket must have: everything blocked. */
export const PUBLIC_ACCESS_BLOCK = {
  BlockPublicAcls: true,
  IgnorePublicAcls: true,
  BlockPublicPolicy: true,
  RestrictPublicBuckets: true,
} as const;

/** Object ownership: the bucket owner owns every object; ACLs are disabled. */
export const OBJECT_OWNERSHIP = "BucketOwnerEnforced";

/**
 * The lifecycle rule bootstrap adds: parts of a multipart upload not completed within 7 days
 * are removed (they are billed as storage until then, invisible to listings).
 */
export const ABORT_INCOMPLETE_UPLOADS_RULE: LifecycleRule = {
  ID: "deploy-abort-incomplete-multipart-uploads",
  Status: "Enabled",
  Filter: { Prefix: "" },
  AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 },
};

/**
 * Whether some enabled rule, for the whole bucket, removes incomplete multipart uploads (pure):
 * ours, or an equivalent one the owner wrote.
 *
 * @param rules the bucket's lifecycle rules (`undefined`: no lifecycle configuration)
 * @returns true when one does
 */
export function abortsIncompleteUploads(rules: readonly LifecycleRule[] | undefined): boolean {
  return (rules ?? []).some((r) =>
    r.Status === "Enabled" && r.AbortIncompleteMultipartUpload?.DaysAfterInitiation !== undefined &&
    // The rule-level `Prefix` is the older way to scope a rule; either form must cover all keys.
    (r.Prefix ?? "") === "" &&
    (r.Filter === undefined || (r.Filter.Prefix ?? "") === "" && r.Filter.And === undefined &&
        r.Filter.Tag === undefined && r.Filter.ObjectSizeGreaterThan === undefined &&
        r.Filter.ObjectSizeLessThan === undefined)
  );
}

/**
 * The lifecycle rules to write (pure): the owner's rules, and ours (the incomplete-upload rule,
 * then `extra`) beside them in the style they use. S3 refuses a configuration mixing rule-level
 * `Prefix` (the older form) with `Filter`, so next to older-style rules ours scope themselves
 * with a rule-level `Prefix` too.
 *
 * @param owners the bucket's current rules
 * @param extra the bucket's own further rules (the site bucket's kept-output expiry)
 * @returns the rules to put
 */
export function withLifecycleRules(
  owners: readonly LifecycleRule[],
  extra: readonly LifecycleRule[] = [],
): LifecycleRule[] {
  const ours = [ABORT_INCOMPLETE_UPLOADS_RULE, ...extra];
  const ids = new Set(ours.map((r) => r.ID));
  const others = owners.filter((r) => !ids.has(r.ID));
  const legacy = others.some((r) => r.Prefix !== undefined);
  return [
    ...others,
    ...ours.map((rule) => {
      if (!legacy) return rule;
      const { Filter: filter, ...unfiltered } = rule;
      return { ...unfiltered, Prefix: filter?.Prefix ?? "" };
    }),
  ];
}

/**
 * The differences between the bucket's rules and one rule of ours (pure), matched by `ID`:
 * missing, disabled, another scope or another expiry.
 *
 * @param live the bucket's rules (`undefined`: no lifecycle configuration)
 * @param want our rule
 * @returns one line per difference
 */
export function lifecycleRuleDrift(
  live: readonly LifecycleRule[] | undefined,
  want: LifecycleRule,
): string[] {
  const rule = (live ?? []).find((r) => r.ID === want.ID);
  if (rule === undefined) return [`no lifecycle rule ${want.ID}`];
  const drift: string[] = [];
  if (rule.Status !== "Enabled") drift.push(`lifecycle rule ${want.ID} is disabled`);
  const prefix = rule.Filter?.Prefix ?? rule.Prefix ?? "";
  if (prefix !== (want.Filter?.Prefix ?? "")) {
    drift.push(`lifecycle rule ${want.ID} covers "${prefix}", want "${want.Filter?.Prefix}"`);
  }
  if (rule.Expiration?.Days !== want.Expiration?.Days) {
    drift.push(
      `lifecycle rule ${want.ID} expires after ${
        rule.Expiration?.Days ?? "no"
      } days, want ${want.Expiration?.Days}`,
    );
  }
  return drift;
}

/**
 * The S3 domain CloudFront uses as the bucket's origin (regional, so no redirect).
 *
 * @param bucket bucket name
 * @param region bucket region
 * @returns e.g. `prod-blog-123456789012.s3.eu-west-1.amazonaws.com`
 */
export function bucketOriginDomain(bucket: string, region: string): string {
  return `${bucket}.s3.${region}.amazonaws.com`;
}

/**
 * The bucket settings that differ from the desired ones (pure).
 *
 * @param live what the bucket has (`undefined` for a missing configuration)
 * @param tags the desired tags
 * @param extraRules the bucket's own further lifecycle rules
 * @returns one line per difference
 */
export function bucketDrift(
  live: {
    publicAccessBlock: Readonly<Record<string, boolean | undefined>> | undefined;
    ownership: string | undefined;
    tags: Readonly<Record<string, string>>;
    lifecycleRules: readonly LifecycleRule[] | undefined;
  },
  tags: Readonly<Record<string, string>>,
  extraRules: readonly LifecycleRule[] = [],
): string[] {
  const drift: string[] = [];
  const open = Object.entries(PUBLIC_ACCESS_BLOCK)
    .filter(([k]) => live.publicAccessBlock?.[k] !== true)
    .map(([k]) => k);
  if (open.length > 0) drift.push(`public access not blocked (${open.join(", ")} off)`);
  if (live.ownership !== OBJECT_OWNERSHIP) {
    drift.push(`object ownership ${live.ownership ?? "unset"}, want ${OBJECT_OWNERSHIP}`);
  }
  drift.push(...tagDrift(live.tags, tags));
  if (!abortsIncompleteUploads(live.lifecycleRules)) {
    drift.push("no lifecycle rule removing incomplete multipart uploads");
  }
  for (const rule of extraRules) drift.push(...lifecycleRuleDrift(live.lifecycleRules, rule));
  return drift;
}

function outputsOf(bucket: string, region: string) {
  return { name: bucket, region, arn: `arn:aws:s3:::${bucket}` };
}

async function liveTags(s3: S3Client, bucket: string): Promise<Record<string, string>> {
  const out = await awsMaybe(
    { resource: `bucket ${bucket}`, action: "s3:GetBucketTagging" },
    () => s3.send(new GetBucketTaggingCommand({ Bucket: bucket })),
    "NoSuchTagSet",
  );
  return tagMap(out?.TagSet);
}

async function liveLifecycle(s3: S3Client, bucket: string) {
  return await awsMaybe(
    { resource: `bucket ${bucket}`, action: "s3:GetLifecycleConfiguration" },
    () => s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: bucket })),
    "NoSuchLifecycleConfiguration",
  );
}

async function configure(
  s3: S3Client,
  Bucket: string,
  wantTags: Readonly<Record<string, string>>,
  existingTags: Record<string, string>,
  extraRules: readonly LifecycleRule[],
): Promise<void> {
  const resource = `bucket ${Bucket}`;
  await aws(
    { resource, action: "s3:PutBucketPublicAccessBlock" },
    () =>
      s3.send(
        new PutPublicAccessBlockCommand({
          Bucket,
          PublicAccessBlockConfiguration: { ...PUBLIC_ACCESS_BLOCK },
        }),
      ),
  );
  await aws(
    { resource, action: "s3:PutBucketOwnershipControls" },
    () =>
      s3.send(
        new PutBucketOwnershipControlsCommand({
          Bucket,
          OwnershipControls: { Rules: [{ ObjectOwnership: OBJECT_OWNERSHIP }] },
        }),
      ),
  );
  // PutBucketTagging replaces the whole set: keep tags others put on the bucket.
  const tags = { ...existingTags, ...wantTags };
  await aws({ resource, action: "s3:PutBucketTagging" }, () =>
    s3.send(
      new PutBucketTaggingCommand({
        Bucket,
        Tagging: { TagSet: tagList(tags) },
      }),
    ));
  // The lifecycle configuration is replaced whole too: add our rule beside the owner's rules,
  // keeping the configuration-wide setting as it was.
  const lifecycle = await liveLifecycle(s3, Bucket);
  const ruleDrift = extraRules.flatMap((r) => lifecycleRuleDrift(lifecycle?.Rules, r));
  if (!abortsIncompleteUploads(lifecycle?.Rules) || ruleDrift.length > 0) {
    const minimumSize = lifecycle?.TransitionDefaultMinimumObjectSize;
    await aws({ resource, action: "s3:PutLifecycleConfiguration" }, () =>
      s3.send(
        new PutBucketLifecycleConfigurationCommand({
          Bucket,
          LifecycleConfiguration: { Rules: withLifecycleRules(lifecycle?.Rules ?? [], extraRules) },
          ...(minimumSize ? { TransitionDefaultMinimumObjectSize: minimumSize } : {}),
        }),
      ));
  }
}

/**
 * Deletes every object under `prefix` (all of the bucket for `""`), 1,000 keys per request.
 *
 * @param s3 S3 client
 * @param bucket bucket name
 * @param prefix key prefix
 * @returns how many objects were deleted
 * @throws {DeployError} an AWS failure
 */
export async function emptyPrefix(s3: S3Client, bucket: string, prefix: string): Promise<number> {
  const resource = `s3://${bucket}/${prefix}`;
  let deleted = 0;
  // Always list from the start: the previous page's keys are gone, so tokens would skip keys.
  for (;;) {
    const page = await aws(
      { resource, action: "s3:ListBucket" },
      () => s3.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 1000 })),
    );
    const keys = (page.Contents ?? []).map((o) => o.Key).filter((k): k is string => !!k);
    if (keys.length === 0) return deleted;
    const out = await aws(
      { resource, action: "s3:DeleteObject" },
      () =>
        s3.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
          }),
        ),
    );
    const failed = out.Errors ?? [];
    if (failed.length > 0) {
      const first = failed[0]!;
      throw new DeployError(
        first.Code === "AccessDenied" ? "aws_access_denied" : "aws_request_failed",
        `could not delete s3://${bucket}/${first.Key}: ${first.Code}: ${first.Message}`,
        { hint: "grant s3:DeleteObject on the bucket and run the command again" },
      );
    }
    deleted += keys.length;
  }
}

/**
 * What makes one private bucket node: its id, name and region. The site bucket and a plugin's
 * buckets (the analytics error bucket) are the same node: private, owner-enforced, tagged,
 * removing incomplete uploads, emptied then deleted on destroy.
 */
export interface PrivateBucketSpec<F extends TaggedFacts, C, Id extends string> {
  /** The node id. */
  readonly id: Id;
  /** The bucket's name. */
  name(facts: F): string;
  /** The bucket's region. */
  region(facts: F): string;
  /** An S3 client for that region. */
  s3(ctx: NodeContext<F, C, Id>): S3Client;
  /** Appended to the label (` (us-east-1)`); default none. */
  readonly labelSuffix?: string;
  /** Lifecycle rules the bucket must have beside the incomplete-upload one; default none. */
  lifecycleRules?(facts: F): LifecycleRule[];
}

/**
 * A private bucket node (see {@linkcode PrivateBucketSpec}).
 *
 * @param spec id, name, region and client
 * @returns the node
 */
export function privateBucketNode<
  F extends TaggedFacts = SiteFacts,
  C = AwsClients,
  Id extends string = NodeId,
>(spec: PrivateBucketSpec<F, C, Id>): ResourceNode<F, C, Id> {
  const outputs = (facts: F) => outputsOf(spec.name(facts), spec.region(facts));
  const rules = (facts: F) => spec.lifecycleRules?.(facts) ?? [];
  return {
    id: spec.id,
    dependsOn: [],
    wanted: () => true,
    label: (facts) => `bucket ${spec.name(facts)}${spec.labelSuffix ?? ""}`,
    async read(ctx) {
      const s3 = spec.s3(ctx);
      const Bucket = spec.name(ctx.facts);
      const resource = `bucket ${Bucket}`;
      try {
        await s3.send(new HeadBucketCommand({ Bucket }));
      } catch (err) {
        const status = awsHttpStatus(err);
        if (isNotFound(err)) return null;
        if (status === 403) {
          throw new DeployError(
            "bucket_name_taken",
            `${resource} exists but this identity cannot use it`,
            {
              hint: "it belongs to another AWS account (change siteName or the environment), " +
                "or this identity lacks s3:ListBucket on it",
              cause: err,
            },
          );
        }
        throw awsFailure(err, { resource, action: "s3:ListBucket" });
      }
      const pab = await awsMaybe(
        { resource, action: "s3:GetBucketPublicAccessBlock" },
        () => s3.send(new GetPublicAccessBlockCommand({ Bucket })),
        "NoSuchPublicAccessBlockConfiguration",
      );
      const ownership = await awsMaybe(
        { resource, action: "s3:GetBucketOwnershipControls" },
        () => s3.send(new GetBucketOwnershipControlsCommand({ Bucket })),
        "OwnershipControlsNotFoundError",
      );
      const tags = await liveTags(s3, Bucket);
      const drift = bucketDrift(
        {
          publicAccessBlock: pab?.PublicAccessBlockConfiguration as
            | Record<string, boolean | undefined>
            | undefined,
          ownership: ownership?.OwnershipControls?.Rules?.[0]?.ObjectOwnership,
          tags,
          lifecycleRules: (await liveLifecycle(s3, Bucket))?.Rules,
        },
        ctx.facts.tags,
        rules(ctx.facts),
      );
      return { outputs: outputs(ctx.facts), drift };
    },
    async create(ctx) {
      const s3 = spec.s3(ctx);
      const region = spec.region(ctx.facts);
      const Bucket = spec.name(ctx.facts);
      try {
        await s3.send(
          new CreateBucketCommand({
            Bucket,
            ObjectOwnership: OBJECT_OWNERSHIP,
            // us-east-1 is the one region that rejects an explicit location constraint.
            ...(region === "us-east-1"
              ? {}
              : { CreateBucketConfiguration: { LocationConstraint: region as never } }),
          }),
        );
      } catch (err) {
        // Ours already (a crashed run created it): carry on configuring it.
        if (awsErrorCode(err) !== "BucketAlreadyOwnedByYou") {
          throw awsFailure(err, { resource: `bucket ${Bucket}`, action: "s3:CreateBucket" });
        }
      }
      await configure(s3, Bucket, ctx.facts.tags, {}, rules(ctx.facts));
      return outputs(ctx.facts);
    },
    async update(ctx) {
      const s3 = spec.s3(ctx);
      const Bucket = spec.name(ctx.facts);
      await configure(s3, Bucket, ctx.facts.tags, await liveTags(s3, Bucket), rules(ctx.facts));
      return outputs(ctx.facts);
    },
    async delete(ctx) {
      const s3 = spec.s3(ctx);
      const Bucket = spec.name(ctx.facts);
      const removed = await emptyPrefix(s3, Bucket, "");
      if (removed > 0) ctx.note(`deleted ${removed} object(s) from bucket ${Bucket}`);
      await awsMaybe(
        { resource: `bucket ${Bucket}`, action: "s3:DeleteBucket" },
        () => s3.send(new DeleteBucketCommand({ Bucket })),
      );
    },
  };
}

/**
 * The rule that expires kept build outputs (`outputs/`, see `build_records/output.ts`)
 * {@linkcode outputExpiryDays} after their last write (pure).
 *
 * @param buildsDays config `retention.buildsDays`
 * @returns the rule
 */
export function keptOutputsRule(buildsDays: number): LifecycleRule {
  return {
    ID: "deploy-expire-kept-build-outputs",
    Status: "Enabled",
    Filter: { Prefix: OUTPUTS_PREFIX },
    Expiration: { Days: outputExpiryDays(buildsDays) },
  };
}

/** Days a MicroVM build cache entry (`cache/`) lives after its last use. */
export const BUILD_CACHE_DAYS = 30;

/**
 * The rule that expires the MicroVM builder's cache entries (`cache/`, see
 * `build_cache/bucket_build_cache.ts`) {@linkcode BUILD_CACHE_DAYS} days after their last
 * write; a build that uses an entry rewrites it in place, so it counts from the last use.
 */
export const BUILD_CACHE_RULE: LifecycleRule = {
  ID: "deploy-expire-build-cache",
  Status: "Enabled",
  Filter: { Prefix: BUILD_CACHE_PREFIX },
  Expiration: { Days: BUILD_CACHE_DAYS },
};

/** The site bucket node: a private bucket whose kept build outputs and build cache expire. */
export const bucketNode: ResourceNode = privateBucketNode({
  id: "bucket",
  name: (facts) => facts.bucket,
  region: (facts) => facts.config.region,
  s3: (ctx) => ctx.clients.s3,
  lifecycleRules: (facts) => [
    keptOutputsRule(facts.config.retention.buildsDays),
    BUILD_CACHE_RULE,
  ],
});
