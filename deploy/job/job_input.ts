/**
 * The build-and-publish job's input, described once: {@linkcode JOB_FIELDS} gives the type
 * ({@linkcode JobInput}), the check that reads a job back from JSON ({@linkcode fromWire}) and
 * the fields table of `docs/deploy-builder.md` (`describeFields`). The MicroVM builder sends
 * {@linkcode toWire}`(input)` as the run hook payload; the agent runs `runJob(fromWire(text))`.
 * Adding a job option is one field here and its line in {@linkcode JobInput} (written out for
 * JSR's explicit public types; the compiler checks the two agree), and its use in `runJob`.
 *
 * Large parts travel by reference: the MicroVM builder stores the rules target and the kept
 * list in the bucket and puts `{stagedKey}` in their place (the payload is at most 16 KB);
 * `runJob` reads them back.
 *
 * @module
 */
import { DeployError } from "../errors.ts";
import type { OutputManifest } from "../build_records/output.ts";
import type { RoutingTarget } from "../routing/publish_routing.ts";
import type { SeoSettings } from "../seo/policy.ts";
import type { KeptFile } from "../sync/retention.ts";
import {
  checked,
  count,
  flag,
  type Infer,
  instant,
  isObject,
  object,
  oneOf,
  optional,
  orUndefined,
  stringMap,
  text,
  type TypeOf,
  WireIssue,
} from "./wire_codec.ts";

/** Version of the wire form; the agent refuses any other (it is built from the same commit). */
export const JOB_WIRE_VERSION = 2;

const staged = object("stored in the target bucket, read by the job", {
  stagedKey: text("the object's key (`build/<id>.routing.json`, `build/<id>.kept.json`)"),
});

/** A part of the job stored in the target bucket instead of sent inline. */
export interface Staged {
  readonly stagedKey: string;
}

const paths = object("`paths.app` and `paths.dist`", {
  app: text("directory where install and build run (`paths.app`, default `.`)"),
  dist: text("built output directory relative to the repo root (`paths.dist`, default `dist`)"),
});

/** Where a build reads and writes, repo-relative (config `paths`). */
export interface BuildPaths {
  readonly app: string;
  readonly dist: string;
}

const source = oneOf(
  "where the source is: a zip on this machine, a zip in the target bucket (what a MicroVM " +
    "is given), an output built already (`--no-build`), or a kept build output (`rollback`)",
  object("a source zip on this machine", { zip: text("the zip's path") }),
  object("a source zip in the target bucket", { bucketKey: text("`build/<id>.zip`") }),
  object("an output directory built already", { builtDir: text("the directory") }),
  object("a kept build output", {
    output: checked<OutputManifest>(
      "OutputManifest",
      "its manifest",
      (v) =>
        isObject(v) && typeof v.id === "string" && Array.isArray(v.files)
          ? undefined
          : "be an output manifest",
    ),
  }),
);

/**
 * Where the job's source is: a source zip on this machine, a source zip in the target bucket
 * (what a MicroVM is given), an output directory built already (`--no-build`: the job skips
 * unpack, install and build, and never writes into that directory), or a kept build output
 * (`rollback`: its manifest's files are copied back server-side, with their own headers and
 * tags; nothing is built, and the SEO files are the build's own).
 */
export type JobSource =
  | { readonly zip: string }
  | { readonly bucketKey: string }
  | { readonly builtDir: string }
  | { readonly output: OutputManifest };

const target = object("bucket and key prefix to publish under", {
  bucket: text("the site bucket (source zip, records and the live site live there)"),
  prefix: text("the key prefix the output is synced under (`site/`, `previews/<id>/site/`)"),
  region: optional(text("the bucket's region (the MicroVM agent's S3 client)")),
});

/** Where the job publishes: the site bucket and the key prefix (`site/`, `previews/<id>/site/`). */
export interface JobTarget {
  readonly bucket: string;
  readonly prefix: string;
  readonly region?: string;
}

const record = object("finish this build record (and store the changed-keys manifest)", {
  startedAt: instant("launch time (the record's `startedAt`)"),
  source: text("the source zip's key (`build/<id>.zip`)"),
  logGroup: text("log group of the build's output"),
  logStream: text("log stream of the build's output"),
});

/** The build record the job finishes (started by the builder: either one, for every deploy). */
export interface JobRecord {
  readonly startedAt: string;
  readonly source: string;
  readonly logGroup: string;
  readonly logStream: string;
}

const keptFiles = checked<readonly KeptFile[]>(
  "[{key, size, since}]",
  "what earlier deploys kept (`state/<env>.kept.json`)",
  (v) =>
    Array.isArray(v) &&
      v.every((f) =>
        isObject(f) && typeof f.key === "string" && typeof f.size === "number" &&
        typeof f.since === "string"
      )
      ? undefined
      : "be a list of kept files",
);

const retention = object("keep what the build no longer has for open tabs", {
  previousDays: count("config `retention.previousDays`", 0),
  now: instant("the deploy's time on the CLI's clock: graces count against it"),
  kept: oneOf("what earlier deploys kept, inline or staged", keptFiles, staged),
});

/** How a job keeps the files its build no longer has, for open tabs (`sync/retention.ts`). */
export interface JobRetention {
  readonly previousDays: number;
  readonly now: string;
  readonly kept: readonly KeptFile[] | Staged;
}

const ROBOTS = ["auto", "index", "noindex", "off"];
const SITEMAP = ["auto", "on", "off"];

/** The job's fields: one entry per option, its check and its docs. */
export const JOB_FIELDS = {
  buildId: text("the build id (revision-based): names records, markers, the source zip", {
    regex: /^[\w.-]+$/,
    rule: "be letters, digits, `_`, `.` or `-`",
  }),
  source,
  paths,
  maxDurationSeconds: count(
    "`microvm.maxDurationSeconds`: install and build together get this plus 60 s",
    1,
  ),
  target,
  tags: stringMap("object tags for every uploaded file"),
  seo: checked<SeoSettings>(
    "{robots, robotsContent?, sitemap}",
    "config `seo`",
    (v) =>
      isObject(v) && ROBOTS.includes(v.robots as string) &&
        SITEMAP.includes(v.sitemap as string) &&
        (v.robotsContent === undefined || typeof v.robotsContent === "string")
        ? undefined
        : "be the seo settings",
  ),
  production: flag("the production environment and not a preview: drives `seo` `auto`"),
  origin: orUndefined(text("site origin for the sitemap (`https://…`); absent when unknown")),
  refresh: optional(flag("`--refresh`: re-upload every file (and count it as changed)")),
  force: optional(flag("`--force`: allow a sync that deletes most of the live site")),
  dryRun: optional(flag("`plan`: decide the sync but change nothing")),
  keepOutputDays: optional(
    count("keep the synced output restorable this many days (`retention.buildsDays`)", 1),
  ),
  record: optional(record),
  owedKey: optional(
    text("where the target's owed invalidation is recorded, before the first upload"),
  ),
  retention: optional(retention),
  routing: optional(oneOf(
    "where the site's redirect and header rules go live, before the sync; absent (a preview): " +
      "checked, not applied",
    checked<RoutingTarget>(
      "RoutingTarget",
      "the rules target",
      (v) =>
        isObject(v) && typeof v.rewriteFunction === "string" &&
          typeof v.distributionId === "string" && isObject(v.configRules)
          ? undefined
          : "be a rules target",
    ),
    staged,
  )),
  cache: optional(object(
    "use the build caches of this site and branch (docs/deploy-builder.md#the-build-cache); " +
      "absent (`--no-cache`): neither read nor kept",
    {
      site: text("config `siteName`: the framework caches are kept per site"),
      branch: text("the branch built: the environment, or `preview-<id>` for a preview"),
    },
  )),
  buildEnv: optional(
    stringMap(
      "config `build.env` with its `${VAR}`s filled: plain variables for install and build",
    ),
  ),
  buildSecrets: optional(stringMap(
    "config `build.secrets`: variable → Secrets Manager secret name; the values are read where " +
      "the build runs, at build time, and never travel in the job",
  )),
} as const;

const job = object("one build-and-publish job", JOB_FIELDS);

/**
 * One build-and-publish job, resolved from config, state and flags. Written out (JSR's public
 * API wants explicit types); the compiler checks it is exactly what {@linkcode JOB_FIELDS}
 * decodes to, so a field added there and not here (or the other way) does not type-check.
 */
export interface JobInput {
  readonly buildId: string;
  readonly source: JobSource;
  readonly paths: BuildPaths;
  readonly maxDurationSeconds: number;
  readonly target: JobTarget;
  readonly tags: Readonly<Record<string, string>>;
  readonly seo: SeoSettings;
  readonly production: boolean;
  readonly origin: string | undefined;
  readonly refresh?: boolean;
  readonly force?: boolean;
  readonly dryRun?: boolean;
  readonly keepOutputDays?: number;
  readonly record?: JobRecord;
  readonly owedKey?: string;
  readonly retention?: JobRetention;
  readonly routing?: RoutingTarget | Staged;
  readonly cache?: { readonly site: string; readonly branch: string };
  readonly buildEnv?: Readonly<Record<string, string>>;
  readonly buildSecrets?: Readonly<Record<string, string>>;
}

/** True only when `A` and `B` are the same type (readonly and optional modifiers included). */
type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true
  : false;

// Each written-out type is exactly its description's (a mismatch fails `deno check`).
const described: [
  Same<JobInput, Infer<typeof JOB_FIELDS>>,
  Same<Staged, TypeOf<typeof staged>>,
  Same<BuildPaths, TypeOf<typeof paths>>,
  Same<JobSource, TypeOf<typeof source>>,
  Same<JobTarget, TypeOf<typeof target>>,
  Same<JobRecord, TypeOf<typeof record>>,
  Same<JobRetention, TypeOf<typeof retention>>,
] = [true, true, true, true, true, true, true];
void described;

/**
 * The job as the run hook payload (pure): its own JSON with the wire version; `undefined`
 * leaves a key out.
 *
 * @param input the job
 * @returns JSON text
 *
 * @example
 * ```ts
 * import { fromWire, toWire } from "./job_input.ts";
 *
 * const sent = toWire({
 *   buildId: "abc123",
 *   source: { bucketKey: "build/abc123.zip" },
 *   paths: { app: ".", dist: "dist" },
 *   maxDurationSeconds: 900,
 *   target: { bucket: "site-bucket", prefix: "site/" },
 *   tags: {},
 *   seo: { robots: "auto", sitemap: "auto" },
 *   production: true,
 *   origin: undefined,
 * });
 * if (fromWire(sent).buildId !== "abc123") throw new Error("round trip");
 * ```
 */
export function toWire(input: JobInput): string {
  return JSON.stringify({ version: JOB_WIRE_VERSION, ...input });
}

/**
 * Reads a job back from its wire form (pure), checking every field against
 * {@linkcode JOB_FIELDS}. A payload wrapped as `{"payload": "<job JSON>"}` (some hook
 * listeners wrap it) is accepted too.
 *
 * @param text the payload
 * @returns the job
 * @throws DeployError `build_failed` naming the first field that does not fit
 */
export function fromWire(text: string): JobInput {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw badJob("the job is not JSON");
  }
  if (!isObject(raw)) throw badJob("the job is not an object");
  if (typeof raw.payload === "string" && raw.version === undefined) return fromWire(raw.payload);
  const { version, ...fields } = raw;
  if (version !== JOB_WIRE_VERSION) throw badJob(`unsupported job version ${String(version)}`);
  try {
    return job.decode(fields, "");
  } catch (err) {
    if (err instanceof WireIssue) throw badJob(err.message);
    throw err;
  }
}

function badJob(reason: string): DeployError {
  return new DeployError("build_failed", `bad build job: ${reason}`, {
    hint: "the CLI and the builder image come from one build; deploy again to rebuild the image",
  });
}
