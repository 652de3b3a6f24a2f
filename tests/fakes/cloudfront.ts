/**
 * A loopback fake of Amazon CloudFront (REST-XML, API `2020-05-31`): distributions with ETag
 * concurrency and deploy status, Origin Access Controls, CloudFront Functions (DEVELOPMENT and
 * LIVE stages, KeyValueStore associations), response headers policies, KeyValueStores (the
 * control plane: create, describe, delete), invalidations and tags.
 *
 * The fake stores each `DistributionConfig` as the XML the SDK sent and echoes it back, so any
 * field the tool sets round-trips without the fake modelling the whole schema.
 *
 * @module
 */

import {
  type CloudFrontClient,
  CreateOriginAccessControlCommand,
} from "@aws-sdk/client-cloudfront";
import { restXmlError } from "./rest_xml.ts";
import { type AwsFake, FakeAwsError, type RoutedCall, startFakeServer } from "./server.ts";
import {
  at,
  child,
  parseXml,
  renderNode,
  textAt,
  textsAt,
  xml,
  type XmlNode,
  xmlResponse,
} from "./xml.ts";

const XMLNS = "http://cloudfront.amazonaws.com/doc/2020-05-31/";
const VERSION = "/2020-05-31";

/** Deployment status of a distribution. */
export type FakeDistributionStatus = "InProgress" | "Deployed";

/** A distribution held by the fake. */
export interface FakeDistribution {
  /** `EDFAKE…` id. */
  id: string;
  /** `arn:aws:cloudfront::<account>:distribution/<id>`. */
  arn: string;
  /** `<id lowercased>.cloudfront.net`. */
  domainName: string;
  /**
   * Current status; `InProgress` after every create/update, publish of an associated function
   * or update of its response headers policy, until deployed.
   */
  status: FakeDistributionStatus;
  /** The current ETag (changes on every update). */
  etag: string;
  /** Last change. */
  lastModified: Date;
  /** The `DistributionConfig` element as last sent. */
  config: XmlNode;
  /** `GetDistribution` calls still answered `InProgress` (`Infinity`: until `deploy()`). */
  readsUntilDeployed: number;
}

/** An Origin Access Control held by the fake. */
export interface FakeOriginAccessControl {
  /** `EOFAKE…` id. */
  id: string;
  /** The current ETag. */
  etag: string;
  /** The `OriginAccessControlConfig` element as sent. */
  config: XmlNode;
}

/** One stage (`DEVELOPMENT` or `LIVE`) of a CloudFront Function. */
export interface FakeFunctionStage {
  /** The function's JavaScript source, as sent. */
  code: string;
  /** `cloudfront-js-1.0` or `cloudfront-js-2.0`. */
  runtime: string;
  /** The function's comment. */
  comment: string;
  /** The KeyValueStore associated, if any. */
  keyValueStoreArn?: string;
  /** This stage's ETag (changes whenever the stage changes). */
  etag: string;
  /** Last change of this stage. */
  lastModified: Date;
}

/** A CloudFront Function held by the fake. */
export interface FakeFunction {
  /** The unique name. */
  name: string;
  /** `arn:aws:cloudfront::<account>:function/<name>` (the same for both stages). */
  arn: string;
  /** When it was created. */
  created: Date;
  /** The stage `CreateFunction`/`UpdateFunction` write. */
  development: FakeFunctionStage;
  /** The stage `PublishFunction` copies DEVELOPMENT to; what distributions run. */
  live?: FakeFunctionStage;
}

/** A response headers policy held by the fake. */
export interface FakeResponseHeadersPolicy {
  /** Its id. */
  id: string;
  /** The current ETag. */
  etag: string;
  /** Last change. */
  lastModified: Date;
  /** The `ResponseHeadersPolicyConfig` element as sent. */
  config: XmlNode;
}

/** A KeyValueStore held by the fake (its keys live in the data-plane fake). */
export interface FakeKeyValueStore {
  /** The unique name. */
  name: string;
  /** Its id (a UUID). */
  id: string;
  /** `arn:aws:cloudfront::<account>:key-value-store/<id>`. */
  arn: string;
  /** Its comment. */
  comment: string;
  /** The current ETag. */
  etag: string;
  /** Last change. */
  lastModified: Date;
}

/** An invalidation held by the fake. */
export interface FakeInvalidation {
  /** `IFAKE…` id. */
  id: string;
  /** The distribution it belongs to. */
  distributionId: string;
  /** `InProgress` until completed. */
  status: "InProgress" | "Completed";
  /** When it was created. */
  createTime: Date;
  /** The invalidated paths. */
  paths: string[];
  /** The caller reference. */
  callerReference: string;
  /** `GetInvalidation` calls still answered `InProgress`. */
  readsUntilCompleted: number;
}

/** The CloudFront fake's state and controls. */
export interface CloudFrontFakeState {
  /** Distributions by id, in creation order. */
  readonly distributions: Map<string, FakeDistribution>;
  /** Origin Access Controls by id. */
  readonly originAccessControls: Map<string, FakeOriginAccessControl>;
  /** CloudFront Functions by name. */
  readonly functions: Map<string, FakeFunction>;
  /** Response headers policies by id. */
  readonly responseHeadersPolicies: Map<string, FakeResponseHeadersPolicy>;
  /** KeyValueStores by name. */
  readonly keyValueStores: Map<string, FakeKeyValueStore>;
  /** Invalidations, newest last. */
  readonly invalidations: FakeInvalidation[];
  /** Tags by resource ARN. */
  readonly tags: Map<string, Map<string, string>>;
  /** Marks a distribution `Deployed` now. */
  deploy(id: string): void;
  /**
   * Adds a `Deployed` distribution with this id and an empty config, as if made outside the
   * test: for tests that only invalidate (the deploy pipeline's), which never create one.
   */
  seedDistribution(id: string): FakeDistribution;
  /** Marks every invalidation `Completed` now. */
  completeInvalidations(): void;
  /** Reads a text field of a distribution's config by `/`-path, e.g. `DefaultRootObject`. */
  configText(id: string, path: string): string | undefined;
  /** Reads the item texts of a config list by path, e.g. `Aliases/Items`. */
  configTexts(id: string, path: string): string[];
  /** The invalidated paths of one distribution, flattened in order. */
  invalidatedPaths(distributionId: string): string[];
}

/** Options for {@link startCloudFrontFake}. */
export interface CloudFrontFakeOptions {
  /** The account id in ARNs (default `123456789012`). */
  accountId?: string;
  /**
   * `GetDistribution` calls answered `InProgress` after a create/update before turning
   * `Deployed` (default 1). `0` deploys instantly; `Infinity` waits for `state.deploy(id)`.
   */
  deployAfterReads?: number;
  /** `GetInvalidation` calls answered `InProgress` before `Completed` (default 1). */
  completeInvalidationAfterReads?: number;
  /**
   * The status of an ACM certificate, to refuse a distribution using a missing or unissued one
   * (`InvalidViewerCertificate`) as CloudFront does; default: any certificate is acceptable.
   */
  certificateStatus?: (arn: string) => string | undefined;
  /** Clock (default: system time). */
  now?: () => Date;
}

/**
 * Starts the CloudFront fake on a free loopback port.
 *
 * Enforces what CloudFront enforces and a deploy tool must respect: `If-Match` on
 * update/delete (`InvalidIfMatchVersion`, `PreconditionFailed`), delete only when disabled and
 * deployed (`DistributionNotDisabled`), unique caller references (`DistributionAlreadyExists`)
 * and aliases (`CNAMEAlreadyExists`), `Quantity` matching `Items` (`InvalidArgument`), known
 * OACs and origins, OACs in use (`OriginAccessControlInUse`); for functions: unique names
 * (`FunctionAlreadyExists`), the 10 KB code limit (`FunctionSizeLimitExceeded`), `If-Match`
 * against the DEVELOPMENT stage, associations only with published functions
 * (`InvalidFunctionAssociation`) and no deletion while associated (`FunctionInUse`).
 *
 * @param options account, status timing, certificate lookup, clock
 * @returns the fake; `await using` stops it
 * @example
 * ```ts
 * import { CloudFrontClient } from "@aws-sdk/client-cloudfront";
 * import { testAwsConfig } from "../support/s3.ts";
 *
 * await using cf = startCloudFrontFake({ deployAfterReads: 0 });
 * const sdk = new CloudFrontClient({ ...testAwsConfig, endpoint: cf.endpoint });
 * ```
 */
export function startCloudFrontFake(
  options: CloudFrontFakeOptions = {},
): AwsFake<CloudFrontFakeState> {
  const accountId = options.accountId ?? "123456789012";
  const now = options.now ?? (() => new Date());
  const deployAfterReads = options.deployAfterReads ?? 1;
  const completeAfterReads = options.completeInvalidationAfterReads ?? 1;
  const counters = { distribution: 0, oac: 0, invalidation: 0, etag: 0, policy: 0 };
  const nextId = (prefix: string, key: keyof typeof counters) =>
    `${prefix}${String(++counters[key]).padStart(14 - prefix.length, "0")}`;
  const nextEtag = () => nextId("ETAG", "etag");

  const distributions = new Map<string, FakeDistribution>();
  const originAccessControls = new Map<string, FakeOriginAccessControl>();
  const invalidations: FakeInvalidation[] = [];
  const functions = new Map<string, FakeFunction>();
  const responseHeadersPolicies = new Map<string, FakeResponseHeadersPolicy>();
  const keyValueStores = new Map<string, FakeKeyValueStore>();
  const tags = new Map<string, Map<string, string>>();

  const distribution = (id: string): FakeDistribution => {
    const d = distributions.get(id);
    if (!d) {
      throw new FakeAwsError(
        "NoSuchDistribution",
        404,
        "The specified distribution does not exist.",
      );
    }
    return d;
  };
  const oac = (id: string): FakeOriginAccessControl => {
    const o = originAccessControls.get(id);
    if (!o) {
      throw new FakeAwsError(
        "NoSuchOriginAccessControl",
        404,
        "The specified origin access control does not exist.",
      );
    }
    return o;
  };
  const state: CloudFrontFakeState = {
    distributions,
    originAccessControls,
    functions,
    responseHeadersPolicies,
    keyValueStores,
    invalidations,
    tags,
    deploy(id) {
      const d = distribution(id);
      d.status = "Deployed";
      d.readsUntilDeployed = 0;
    },
    seedDistribution(id) {
      const d: FakeDistribution = {
        id,
        arn: `arn:aws:cloudfront::${accountId}:distribution/${id}`,
        domainName: `${id.toLowerCase()}.cloudfront.net`,
        status: "Deployed",
        etag: nextEtag(),
        lastModified: now(),
        config: parseXml("<DistributionConfig></DistributionConfig>"),
        readsUntilDeployed: 0,
      };
      distributions.set(id, d);
      tags.set(d.arn, new Map());
      return d;
    },
    completeInvalidations() {
      for (const inv of invalidations) inv.status = "Completed";
    },
    configText: (id, path) => textAt(distribution(id).config, path),
    configTexts: (id, path) => textsAt(distribution(id).config, path),
    invalidatedPaths: (distributionId) =>
      invalidations.filter((i) => i.distributionId === distributionId).flatMap((i) => i.paths),
  };

  const checkIfMatch = (ifMatch: string | null, etag: string) => {
    if (!ifMatch) {
      throw new FakeAwsError(
        "InvalidIfMatchVersion",
        400,
        "The If-Match version is missing or not valid for the resource.",
      );
    }
    if (ifMatch !== etag) {
      throw new FakeAwsError(
        "PreconditionFailed",
        412,
        "The precondition given in one or more of the request-header fields evaluated to false.",
      );
    }
  };
  const validateConfig = (config: XmlNode, self: string | undefined) => {
    checkQuantities(config);
    for (
      const name of ["CallerReference", "Origins", "DefaultCacheBehavior", "Comment", "Enabled"]
    ) {
      if (!child(config, name)) {
        throw new FakeAwsError("MalformedInput", 400, `DistributionConfig is missing ${name}`);
      }
    }
    const origins = at(config, "Origins/Items")?.children ?? [];
    if (origins.length === 0) {
      throw new FakeAwsError("InvalidArgument", 400, "At least one origin is required.");
    }
    const originIds = origins.map((o) => textAt(o, "Id"));
    const target = textAt(config, "DefaultCacheBehavior/TargetOriginId");
    if (!originIds.includes(target)) {
      throw new FakeAwsError("NoSuchOrigin", 404, `No origin has the id ${target}.`);
    }
    for (const o of origins) {
      const oacId = textAt(o, "OriginAccessControlId");
      if (oacId) oac(oacId);
    }
    checkFunctionAssociations(config);
    const policyId = textAt(config, "DefaultCacheBehavior/ResponseHeadersPolicyId");
    if (policyId) headersPolicy(policyId);
    const aliases = textsAt(config, "Aliases/Items");
    const certArn = textAt(config, "ViewerCertificate/ACMCertificateArn");
    if (aliases.length > 0 && !certArn) {
      throw new FakeAwsError(
        "InvalidViewerCertificate",
        400,
        "To add an alternate domain name (CNAME) to a CloudFront distribution, you must attach a trusted certificate that validates your authorization to use the domain name.",
      );
    }
    if (certArn && options.certificateStatus && options.certificateStatus(certArn) !== "ISSUED") {
      throw new FakeAwsError(
        "InvalidViewerCertificate",
        400,
        `The specified SSL certificate doesn't exist, isn't in us-east-1 region, isn't valid, or doesn't include a valid certificate chain.`,
      );
    }
    for (const other of distributions.values()) {
      if (other.id === self) continue;
      const taken = textsAt(other.config, "Aliases/Items").find((a) => aliases.includes(a));
      if (taken) {
        throw new FakeAwsError(
          "CNAMEAlreadyExists",
          409,
          `One or more of the CNAMEs you provided are already associated with a different resource: ${taken}`,
        );
      }
    }
  };
  const fn = (name: string): FakeFunction => {
    const f = functions.get(name);
    if (!f) {
      throw new FakeAwsError("NoSuchFunctionExists", 404, "The function does not exist.");
    }
    return f;
  };
  const headersPolicy = (id: string): FakeResponseHeadersPolicy => {
    const p = responseHeadersPolicies.get(id);
    if (!p) {
      throw new FakeAwsError(
        "NoSuchResponseHeadersPolicy",
        404,
        "The response headers policy does not exist.",
      );
    }
    return p;
  };
  const kvs = (name: string): FakeKeyValueStore => {
    const k = keyValueStores.get(name);
    if (!k) throw new FakeAwsError("EntityNotFound", 404, "The key value store does not exist.");
    return k;
  };
  /** The config of a policy, checked as CloudFront checks it (names unique, 10 custom headers). */
  const policyInput = (config: XmlNode, self?: string): XmlNode => {
    checkQuantities(config);
    const name = textAt(config, "Name") ?? "";
    if (!/^[\w-]{1,128}$/.test(name)) {
      throw new FakeAwsError("InvalidArgument", 400, `Invalid policy name ${name}.`);
    }
    const taken = [...responseHeadersPolicies.values()].find((p) =>
      p.id !== self && textAt(p.config, "Name") === name
    );
    if (taken) {
      throw new FakeAwsError(
        "ResponseHeadersPolicyAlreadyExists",
        409,
        `A response headers policy named ${name} already exists.`,
      );
    }
    const custom = at(config, "CustomHeadersConfig/Items")?.children ?? [];
    if (custom.length > 10) {
      throw new FakeAwsError(
        "TooManyCustomHeadersInResponseHeadersPolicy",
        400,
        "The number of custom headers in the response headers policy exceeds the maximum.",
      );
    }
    return config;
  };
  const policyXml = (p: FakeResponseHeadersPolicy, root = true) =>
    `<ResponseHeadersPolicy${root ? ` xmlns="${XMLNS}"` : ""}>` +
    xml({ Id: p.id, LastModifiedTime: p.lastModified }) + renderNode(p.config) +
    `</ResponseHeadersPolicy>`;
  const kvsXml = (k: FakeKeyValueStore) =>
    `<KeyValueStore xmlns="${XMLNS}">` +
    xml({
      Name: k.name,
      Id: k.id,
      Comment: k.comment,
      ARN: k.arn,
      Status: "READY",
      LastModifiedTime: k.lastModified,
    }) + `</KeyValueStore>`;
  const stageOf = (f: FakeFunction, stage: string | null): FakeFunctionStage => {
    if (stage === null || stage === "DEVELOPMENT") return f.development;
    if (stage !== "LIVE") {
      throw new FakeAwsError("InvalidArgument", 400, `Invalid stage ${stage}.`);
    }
    if (!f.live) {
      throw new FakeAwsError(
        "NoSuchFunctionExists",
        404,
        "The function does not exist in the LIVE stage.",
      );
    }
    return f.live;
  };
  const associatedWith = (arn: string): FakeDistribution | undefined =>
    [...distributions.values()].find((d) => functionArnsOf(d.config).includes(arn));
  /**
   * A change the edge locations apply only as the distribution deploys again: `InProgress`,
   * as after an update ("as soon as the distributions finish deploying", Publish functions).
   */
  const redeploy = (d: FakeDistribution) => {
    d.status = deployAfterReads <= 0 ? "Deployed" : "InProgress";
    d.readsUntilDeployed = deployAfterReads;
  };
  /** CloudFront runs only published (LIVE) functions, one per event type and behaviour. */
  const checkFunctionAssociations = (config: XmlNode) => {
    const behaviours = [
      child(config, "DefaultCacheBehavior"),
      ...(at(config, "CacheBehaviors/Items")?.children ?? []),
    ];
    for (const behaviour of behaviours) {
      const items = at(behaviour, "FunctionAssociations/Items")?.children ?? [];
      const events = new Set<string>();
      for (const item of items) {
        const arn = textAt(item, "FunctionARN") ?? "";
        const event = textAt(item, "EventType") ?? "";
        if (!["viewer-request", "viewer-response"].includes(event) || events.has(event)) {
          throw new FakeAwsError(
            "InvalidFunctionAssociation",
            400,
            `Invalid or repeated function association event type ${event}.`,
          );
        }
        events.add(event);
        const f = [...functions.values()].find((x) => x.arn === arn);
        if (!f?.live) {
          throw new FakeAwsError(
            "InvalidFunctionAssociation",
            400,
            `The function ARN ${arn} does not exist or is not published to the LIVE stage.`,
          );
        }
      }
    }
  };
  const functionSummaryXml = (f: FakeFunction, stage: "DEVELOPMENT" | "LIVE", root = true) => {
    const s = stage === "LIVE" ? f.live! : f.development;
    const status = stage === "DEVELOPMENT"
      ? (f.live?.code === s.code && f.live.runtime === s.runtime ? "UNASSOCIATED" : "UNPUBLISHED")
      : associatedWith(f.arn)
      ? "DEPLOYED"
      : "UNASSOCIATED";
    return `<FunctionSummary${root ? ` xmlns="${XMLNS}"` : ""}>` +
      xml({
        Name: f.name,
        Status: status,
        FunctionConfig: {
          Comment: s.comment,
          Runtime: s.runtime,
          ...(s.keyValueStoreArn
            ? {
              KeyValueStoreAssociations: {
                Quantity: 1,
                Items: { KeyValueStoreAssociation: [{ KeyValueStoreARN: s.keyValueStoreArn }] },
              },
            }
            : {}),
        },
        FunctionMetadata: {
          FunctionARN: f.arn,
          Stage: stage,
          CreatedTime: f.created,
          LastModifiedTime: s.lastModified,
        },
      }) + `</FunctionSummary>`;
  };
  /** The function's config and code from a `CreateFunctionRequest`/`UpdateFunctionRequest`. */
  const functionInput = (body: XmlNode): Omit<FakeFunctionStage, "etag" | "lastModified"> => {
    const runtime = textAt(body, "FunctionConfig/Runtime") ?? "";
    if (!["cloudfront-js-1.0", "cloudfront-js-2.0"].includes(runtime)) {
      throw new FakeAwsError("InvalidArgument", 400, `Unsupported runtime ${runtime}.`);
    }
    const comment = textAt(body, "FunctionConfig/Comment");
    if (comment === undefined) {
      throw new FakeAwsError("InvalidArgument", 400, "FunctionConfig/Comment is required.");
    }
    const encoded = textAt(body, "FunctionCode") ?? "";
    const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
    if (bytes.length === 0) {
      throw new FakeAwsError("InvalidArgument", 400, "FunctionCode is required.");
    }
    if (bytes.length > FUNCTION_CODE_LIMIT) {
      throw new FakeAwsError(
        "FunctionSizeLimitExceeded",
        413,
        `The function code is ${bytes.length} bytes; the limit is ${FUNCTION_CODE_LIMIT}.`,
      );
    }
    const stores = (at(body, "FunctionConfig/KeyValueStoreAssociations/Items")?.children ?? [])
      .map((a) => textAt(a, "KeyValueStoreARN") ?? "");
    if (stores.length > 1) {
      throw new FakeAwsError(
        "TooManyKeyValueStoreAssociations",
        400,
        "A function may be associated with one key value store.",
      );
    }
    const store = stores[0];
    if (store !== undefined && ![...keyValueStores.values()].some((k) => k.arn === store)) {
      throw new FakeAwsError("EntityNotFound", 404, `The key value store ${store} does not exist.`);
    }
    return {
      code: new TextDecoder().decode(bytes),
      runtime,
      comment,
      ...(store ? { keyValueStoreArn: store } : {}),
    };
  };

  const distributionXml = (d: FakeDistribution) =>
    `<Distribution xmlns="${XMLNS}">` +
    xml({
      Id: d.id,
      ARN: d.arn,
      Status: d.status,
      LastModifiedTime: d.lastModified,
      InProgressInvalidationBatches: invalidations.filter((i) =>
        i.distributionId === d.id && i.status === "InProgress"
      ).length,
      DomainName: d.domainName,
      ActiveTrustedSigners: { Enabled: false, Quantity: 0 },
      ActiveTrustedKeyGroups: { Enabled: false, Quantity: 0 },
    }) + renderNode(d.config) + `</Distribution>`;
  const oacXml = (o: FakeOriginAccessControl) =>
    `<OriginAccessControl xmlns="${XMLNS}"><Id>${o.id}</Id>${
      renderNode(o.config)
    }</OriginAccessControl>`;
  const invalidationXml = (i: FakeInvalidation) =>
    `<Invalidation xmlns="${XMLNS}">` +
    xml({
      Id: i.id,
      Status: i.status,
      CreateTime: i.createTime,
      InvalidationBatch: {
        Paths: { Quantity: i.paths.length, Items: { Path: i.paths } },
        CallerReference: i.callerReference,
      },
    }) + `</Invalidation>`;

  const createDistribution = (config: XmlNode, tagSet: Map<string, string>, location: string) => {
    const callerReference = textAt(config, "CallerReference");
    if (
      [...distributions.values()].some((d) =>
        textAt(d.config, "CallerReference") === callerReference
      )
    ) {
      throw new FakeAwsError(
        "DistributionAlreadyExists",
        409,
        `The caller reference that you are using to create a distribution is associated with another distribution.`,
      );
    }
    validateConfig(config, undefined);
    const id = nextId("EDFAKE", "distribution");
    const d: FakeDistribution = {
      id,
      arn: `arn:aws:cloudfront::${accountId}:distribution/${id}`,
      domainName: `${id.toLowerCase()}.cloudfront.net`,
      status: deployAfterReads <= 0 ? "Deployed" : "InProgress",
      etag: nextEtag(),
      lastModified: now(),
      config,
      readsUntilDeployed: deployAfterReads,
    };
    distributions.set(id, d);
    tags.set(d.arn, tagSet);
    return xmlResponse(distributionXml(d), 201, {
      etag: d.etag,
      location: `${location}${VERSION}/distribution/${id}`,
    });
  };
  const listXml = <T>(
    root: string,
    items: T[],
    query: URLSearchParams,
    key: (item: T) => string,
    render: (item: T) => string,
  ) => {
    const marker = query.get("Marker") ?? "";
    const max = Number(query.get("MaxItems") ?? 100);
    const start = marker ? Math.max(0, items.findIndex((i) => key(i) === marker)) : 0;
    const page = items.slice(start, start + max);
    const next = items[start + max];
    return xmlResponse(
      `<${root} xmlns="${XMLNS}">` +
        xml({
          Marker: marker,
          NextMarker: next === undefined ? undefined : key(next),
          MaxItems: max,
          IsTruncated: next !== undefined,
          Quantity: page.length,
        }) +
        (page.length > 0 ? `<Items>${page.map(render).join("")}</Items>` : "") +
        `</${root}>`,
    );
  };
  const summaryXml = (d: FakeDistribution) => {
    const copied = [
      "Aliases",
      "Origins",
      "OriginGroups",
      "DefaultCacheBehavior",
      "CacheBehaviors",
      "CustomErrorResponses",
      "Comment",
      "PriceClass",
      "Enabled",
      "ViewerCertificate",
      "Restrictions",
      "WebACLId",
      "HttpVersion",
      "IsIPV6Enabled",
      "Staging",
    ].map((name) => child(d.config, name)).filter((n) => n !== undefined).map(renderNode).join("");
    return `<DistributionSummary>` +
      xml({
        Id: d.id,
        ARN: d.arn,
        ETag: d.etag,
        Status: d.status,
        LastModifiedTime: d.lastModified,
        DomainName: d.domainName,
      }) + copied + `</DistributionSummary>`;
  };
  const tagsXml = (set: Map<string, string>) =>
    `<Tags xmlns="${XMLNS}">` +
    xml({ Items: { Tag: [...set].map(([Key, Value]) => ({ Key, Value })) } }) + `</Tags>`;
  const resourceTags = (arn: string | null) => {
    if (!arn || !/^arn:aws:cloudfront::\d+:[a-z-]+\/.+$/.test(arn)) {
      throw new FakeAwsError("InvalidArgument", 400, `Invalid resource ARN ${arn}`);
    }
    const set = tags.get(arn);
    if (!set) {
      throw new FakeAwsError("NoSuchResource", 404, "The specified resource does not exist.");
    }
    return set;
  };
  const tagsFrom = (node: XmlNode | undefined) =>
    new Map(
      (at(node, "Items")?.children ?? []).map((
        t,
      ) => [textAt(t, "Key") ?? "", textAt(t, "Value") ?? ""]),
    );

  const route = async (req: Request): Promise<RoutedCall | undefined> => {
    const url = new URL(req.url);
    if (!url.pathname.startsWith(`${VERSION}/`)) return undefined;
    const parts = url.pathname.slice(VERSION.length + 1).split("/").map(decodeURIComponent);
    const q = url.searchParams;
    const ifMatch = req.headers.get("if-match");
    const text = req.method === "POST" || req.method === "PUT" ? await req.text() : "";
    const body = text.trim() ? parseXml(text) : undefined;
    const bodyOrFail = () => {
      if (!body) throw new FakeAwsError("MissingBody", 400, "The request body is missing.");
      return body;
    };
    const call = (
      operation: string,
      handle: () => Response,
      extra: Record<string, unknown> = {},
    ): RoutedCall => ({
      operation,
      input: {
        ...Object.fromEntries(q),
        ...(ifMatch ? { IfMatch: ifMatch } : {}),
        ...extra,
        ...(body ? { body } : {}),
      },
      handle,
    });
    const origin = url.origin;
    const [kind, id, sub, subId] = parts;
    const m = req.method;

    if (kind === "distribution" && id === undefined) {
      if (m === "POST" && q.has("WithTags")) {
        return call("CreateDistributionWithTags", () => {
          const b = bodyOrFail();
          const config = child(b, "DistributionConfig");
          if (!config) {
            throw new FakeAwsError("MalformedInput", 400, "DistributionConfig is required");
          }
          return createDistribution(config, tagsFrom(child(b, "Tags")), origin);
        });
      }
      if (m === "POST") {
        return call(
          "CreateDistribution",
          () => createDistribution(bodyOrFail(), new Map(), origin),
        );
      }
      if (m === "GET") {
        return call(
          "ListDistributions",
          () =>
            listXml("DistributionList", [...distributions.values()], q, (d) => d.id, summaryXml),
        );
      }
    }
    if (kind === "distribution" && id !== undefined && sub === undefined) {
      if (m === "GET") {
        return call("GetDistribution", () => {
          const d = distribution(id);
          const out = xmlResponse(distributionXml(d), 200, { etag: d.etag });
          if (d.status === "InProgress") {
            d.readsUntilDeployed -= 1;
            if (d.readsUntilDeployed <= 0) d.status = "Deployed";
          }
          return out;
        }, { Id: id });
      }
      if (m === "DELETE") {
        return call("DeleteDistribution", () => {
          const d = distribution(id);
          checkIfMatch(ifMatch, d.etag);
          if (textAt(d.config, "Enabled") !== "false" || d.status !== "Deployed") {
            throw new FakeAwsError(
              "DistributionNotDisabled",
              409,
              "The distribution you are trying to delete has not been disabled.",
            );
          }
          distributions.delete(id);
          tags.delete(d.arn);
          return new Response(null, { status: 204 });
        }, { Id: id });
      }
    }
    if (kind === "distribution" && id !== undefined && sub === "config") {
      if (m === "GET") {
        return call("GetDistributionConfig", () => {
          const d = distribution(id);
          const config = renderNode(d.config).replace(
            /^<DistributionConfig>/,
            `<DistributionConfig xmlns="${XMLNS}">`,
          );
          return xmlResponse(config, 200, { etag: d.etag });
        }, { Id: id });
      }
      if (m === "PUT") {
        return call("UpdateDistribution", () => {
          const d = distribution(id);
          checkIfMatch(ifMatch, d.etag);
          const config = bodyOrFail();
          validateConfig(config, d.id);
          if (textAt(config, "CallerReference") !== textAt(d.config, "CallerReference")) {
            throw new FakeAwsError(
              "IllegalUpdate",
              400,
              "The CallerReference of a distribution cannot be changed.",
            );
          }
          d.config = config;
          d.etag = nextEtag();
          d.lastModified = now();
          redeploy(d);
          return xmlResponse(distributionXml(d), 200, { etag: d.etag });
        }, { Id: id });
      }
    }
    if (kind === "distribution" && id !== undefined && sub === "invalidation") {
      if (m === "POST" && subId === undefined) {
        return call("CreateInvalidation", () => {
          const d = distribution(id);
          const batch = bodyOrFail();
          checkQuantities(batch);
          const callerReference = textAt(batch, "CallerReference") ?? "";
          const paths = textsAt(batch, "Paths/Items");
          const same = invalidations.find((i) =>
            i.distributionId === id && i.callerReference === callerReference
          );
          if (same && same.paths.join("\n") !== paths.join("\n")) {
            throw new FakeAwsError(
              "InvalidationBatchAlreadyExists",
              409,
              "Caller reference reused with different paths.",
            );
          }
          const inv = same ?? {
            id: nextId("IFAKE", "invalidation"),
            distributionId: d.id,
            status: completeAfterReads <= 0 ? "Completed" as const : "InProgress" as const,
            createTime: now(),
            paths,
            callerReference,
            readsUntilCompleted: completeAfterReads,
          };
          if (!same) invalidations.push(inv);
          return xmlResponse(invalidationXml(inv), 201, {
            location: `${origin}${VERSION}/distribution/${id}/invalidation/${inv.id}`,
          });
        }, { DistributionId: id });
      }
      if (m === "GET" && subId === undefined) {
        return call("ListInvalidations", () => {
          distribution(id);
          const mine = invalidations.filter((i) => i.distributionId === id).reverse();
          return listXml(
            "InvalidationList",
            mine,
            q,
            (i) => i.id,
            (i) =>
              `<InvalidationSummary>${
                xml({ Id: i.id, CreateTime: i.createTime, Status: i.status })
              }</InvalidationSummary>`,
          );
        }, { DistributionId: id });
      }
      if (m === "GET" && subId !== undefined) {
        return call("GetInvalidation", () => {
          distribution(id);
          const inv = invalidations.find((i) => i.distributionId === id && i.id === subId);
          if (!inv) {
            throw new FakeAwsError(
              "NoSuchInvalidation",
              404,
              "The specified invalidation does not exist.",
            );
          }
          const out = xmlResponse(invalidationXml(inv));
          if (inv.status === "InProgress") {
            inv.readsUntilCompleted -= 1;
            if (inv.readsUntilCompleted <= 0) inv.status = "Completed";
          }
          return out;
        }, { DistributionId: id, Id: subId });
      }
    }
    if (kind === "tagging" && id === undefined) {
      const resource = q.get("Resource");
      if (m === "GET") {
        return call("ListTagsForResource", () => xmlResponse(tagsXml(resourceTags(resource))));
      }
      if (m === "POST" && q.get("Operation") === "Tag") {
        return call("TagResource", () => {
          const set = resourceTags(resource);
          for (const [k, v] of tagsFrom(bodyOrFail())) set.set(k, v);
          return new Response(null, { status: 204 });
        });
      }
      if (m === "POST" && q.get("Operation") === "Untag") {
        return call("UntagResource", () => {
          const set = resourceTags(resource);
          for (const k of textsAt(bodyOrFail(), "Items")) set.delete(k);
          return new Response(null, { status: 204 });
        });
      }
    }
    if (kind === "function" && id === undefined) {
      if (m === "POST") {
        return call("CreateFunction", () => {
          const b = bodyOrFail();
          const name = textAt(b, "Name") ?? "";
          if (!/^[a-zA-Z0-9-_]{1,64}$/.test(name)) {
            throw new FakeAwsError("InvalidArgument", 400, `Invalid function name ${name}.`);
          }
          if (functions.has(name)) {
            throw new FakeAwsError(
              "FunctionAlreadyExists",
              409,
              `A function with the name ${name} already exists.`,
            );
          }
          const input = functionInput(b);
          const f: FakeFunction = {
            name,
            arn: `arn:aws:cloudfront::${accountId}:function/${name}`,
            created: now(),
            development: { ...input, etag: nextEtag(), lastModified: now() },
          };
          functions.set(name, f);
          tags.set(f.arn, tagsFrom(child(b, "Tags")));
          return xmlResponse(functionSummaryXml(f, "DEVELOPMENT"), 201, {
            etag: f.development.etag,
            location: `${origin}${VERSION}/function/${name}`,
          });
        });
      }
      if (m === "GET") {
        return call("ListFunctions", () => {
          const stage = q.get("Stage");
          const all = [...functions.values()].filter((f) => stage !== "LIVE" || f.live);
          const marker = q.get("Marker") ?? "";
          const max = Number(q.get("MaxItems") ?? 100);
          const start = marker ? Math.max(0, all.findIndex((f) => f.name === marker)) : 0;
          const page = all.slice(start, start + max);
          const next = all[start + max];
          return xmlResponse(
            `<FunctionList xmlns="${XMLNS}">` +
              xml({ NextMarker: next?.name, MaxItems: max, Quantity: page.length }) +
              (page.length > 0
                ? `<Items>${
                  page.map((f) =>
                    functionSummaryXml(f, stage === "LIVE" ? "LIVE" : "DEVELOPMENT", false)
                  )
                    .join("")
                }</Items>`
                : "") +
              `</FunctionList>`,
          );
        });
      }
    }
    if (kind === "function" && id !== undefined) {
      const stageName = q.get("Stage");
      if (sub === undefined && m === "GET") {
        return call("GetFunction", () => {
          const s = stageOf(fn(id), stageName);
          return new Response(new TextEncoder().encode(s.code), {
            headers: { "content-type": "application/octet-stream", etag: s.etag },
          });
        }, { Name: id });
      }
      if (sub === "describe" && m === "GET") {
        return call("DescribeFunction", () => {
          // As CloudFront (and ministack) answer: the stage is required here.
          if (stageName === null) {
            throw new FakeAwsError(
              "InvalidArgument",
              400,
              "The Stage query string parameter is required.",
            );
          }
          const f = fn(id);
          const s = stageOf(f, stageName);
          return xmlResponse(
            functionSummaryXml(f, stageName === "LIVE" ? "LIVE" : "DEVELOPMENT"),
            200,
            { etag: s.etag },
          );
        }, { Name: id });
      }
      if (sub === undefined && m === "PUT") {
        return call("UpdateFunction", () => {
          const f = fn(id);
          checkIfMatch(ifMatch, f.development.etag);
          f.development = { ...functionInput(bodyOrFail()), etag: nextEtag(), lastModified: now() };
          // The model names this header `ETtag` (sic); CloudFront sends it so.
          return xmlResponse(functionSummaryXml(f, "DEVELOPMENT"), 200, {
            etag: f.development.etag,
            ettag: f.development.etag,
          });
        }, { Name: id });
      }
      if (sub === "publish" && m === "POST") {
        return call("PublishFunction", () => {
          const f = fn(id);
          checkIfMatch(ifMatch, f.development.etag);
          f.live = { ...f.development, etag: nextEtag(), lastModified: now() };
          for (const d of distributions.values()) {
            if (functionArnsOf(d.config).includes(f.arn)) redeploy(d);
          }
          return xmlResponse(functionSummaryXml(f, "LIVE"));
        }, { Name: id });
      }
      if (sub === undefined && m === "DELETE") {
        return call("DeleteFunction", () => {
          const f = fn(id);
          checkIfMatch(ifMatch, f.development.etag);
          const user = associatedWith(f.arn);
          if (user) {
            throw new FakeAwsError(
              "FunctionInUse",
              409,
              `The function is associated with distribution ${user.id}.`,
            );
          }
          functions.delete(id);
          tags.delete(f.arn);
          return new Response(null, { status: 204 });
        }, { Name: id });
      }
    }
    if (kind === "response-headers-policy") {
      if (id === undefined && m === "POST") {
        return call("CreateResponseHeadersPolicy", () => {
          const p: FakeResponseHeadersPolicy = {
            id: nextId("RHPFAKE", "policy"),
            etag: nextEtag(),
            lastModified: now(),
            config: policyInput(bodyOrFail()),
          };
          responseHeadersPolicies.set(p.id, p);
          return xmlResponse(policyXml(p), 201, {
            etag: p.etag,
            location: `${origin}${VERSION}/response-headers-policy/${p.id}`,
          });
        });
      }
      if (id === undefined && m === "GET") {
        return call("ListResponseHeadersPolicies", () => {
          const type = q.get("Type");
          // Only custom policies here: the fake holds no managed ones.
          const all = type === "managed" ? [] : [...responseHeadersPolicies.values()];
          const marker = q.get("Marker") ?? "";
          const max = Number(q.get("MaxItems") ?? 100);
          const start = marker ? Math.max(0, all.findIndex((p) => p.id === marker)) : 0;
          const page = all.slice(start, start + max);
          const next = all[start + max];
          return xmlResponse(
            `<ResponseHeadersPolicyList xmlns="${XMLNS}">` +
              xml({ MaxItems: max, Quantity: page.length, NextMarker: next?.id }) +
              (page.length > 0
                ? `<Items>${
                  page.map((p) =>
                    `<ResponseHeadersPolicySummary><Type>custom</Type>${
                      policyXml(p, false)
                    }</ResponseHeadersPolicySummary>`
                  ).join("")
                }</Items>`
                : "") +
              `</ResponseHeadersPolicyList>`,
          );
        });
      }
      if (id !== undefined && sub === undefined && m === "GET") {
        return call("GetResponseHeadersPolicy", () => {
          const p = headersPolicy(id);
          return xmlResponse(policyXml(p), 200, { etag: p.etag });
        }, { Id: id });
      }
      if (id !== undefined && sub === "config" && m === "GET") {
        return call("GetResponseHeadersPolicyConfig", () => {
          const p = headersPolicy(id);
          const config = renderNode(p.config).replace(
            /^<ResponseHeadersPolicyConfig>/,
            `<ResponseHeadersPolicyConfig xmlns="${XMLNS}">`,
          );
          return xmlResponse(config, 200, { etag: p.etag });
        }, { Id: id });
      }
      if (id !== undefined && sub === undefined && m === "PUT") {
        return call("UpdateResponseHeadersPolicy", () => {
          const p = headersPolicy(id);
          checkIfMatch(ifMatch, p.etag);
          p.config = policyInput(bodyOrFail(), id);
          p.etag = nextEtag();
          p.lastModified = now();
          for (const d of distributions.values()) {
            if (textAt(d.config, "DefaultCacheBehavior/ResponseHeadersPolicyId") === id) {
              redeploy(d);
            }
          }
          return xmlResponse(policyXml(p), 200, { etag: p.etag });
        }, { Id: id });
      }
      if (id !== undefined && sub === undefined && m === "DELETE") {
        return call("DeleteResponseHeadersPolicy", () => {
          const p = headersPolicy(id);
          checkIfMatch(ifMatch, p.etag);
          const user = [...distributions.values()].find((d) =>
            textAt(d.config, "DefaultCacheBehavior/ResponseHeadersPolicyId") === id
          );
          if (user) {
            throw new FakeAwsError(
              "ResponseHeadersPolicyInUse",
              409,
              `The response headers policy is in use by ${user.id}.`,
            );
          }
          responseHeadersPolicies.delete(id);
          return new Response(null, { status: 204 });
        }, { Id: id });
      }
    }
    if (kind === "key-value-store") {
      if (id === undefined && m === "POST") {
        return call("CreateKeyValueStore", () => {
          const b = bodyOrFail();
          const name = textAt(b, "Name") ?? "";
          if (!/^[a-zA-Z0-9-_]{1,64}$/.test(name)) {
            throw new FakeAwsError("InvalidArgument", 400, `Invalid key value store name ${name}.`);
          }
          if (keyValueStores.has(name)) {
            throw new FakeAwsError(
              "EntityAlreadyExists",
              409,
              `A key value store named ${name} already exists.`,
            );
          }
          const storeId = crypto.randomUUID();
          const k: FakeKeyValueStore = {
            name,
            id: storeId,
            arn: `arn:aws:cloudfront::${accountId}:key-value-store/${storeId}`,
            comment: textAt(b, "Comment") ?? "",
            etag: nextEtag(),
            lastModified: now(),
          };
          keyValueStores.set(name, k);
          tags.set(k.arn, tagsFrom(child(b, "Tags")));
          return xmlResponse(kvsXml(k), 201, {
            etag: k.etag,
            location: `${origin}${VERSION}/key-value-store/${name}`,
          });
        });
      }
      if (id !== undefined && m === "GET") {
        return call("DescribeKeyValueStore", () => {
          const k = kvs(id);
          return xmlResponse(kvsXml(k), 200, { etag: k.etag });
        }, { Name: id });
      }
      if (id !== undefined && m === "DELETE") {
        return call("DeleteKeyValueStore", () => {
          const k = kvs(id);
          checkIfMatch(ifMatch, k.etag);
          const user = [...functions.values()].find((f) =>
            f.development.keyValueStoreArn === k.arn || f.live?.keyValueStoreArn === k.arn
          );
          if (user) {
            throw new FakeAwsError(
              "CannotDeleteEntityWhileInUse",
              409,
              `The key value store is associated with function ${user.name}.`,
            );
          }
          keyValueStores.delete(id);
          tags.delete(k.arn);
          return new Response(null, { status: 204 });
        }, { Name: id });
      }
    }
    if (kind === "origin-access-control") {
      if (id === undefined && m === "POST") {
        return call("CreateOriginAccessControl", () => {
          const config = bodyOrFail();
          const name = textAt(config, "Name");
          for (
            const field of [
              "Name",
              "SigningProtocol",
              "SigningBehavior",
              "OriginAccessControlOriginType",
            ]
          ) {
            if (!textAt(config, field)) {
              throw new FakeAwsError("InvalidArgument", 400, `${field} is required`);
            }
          }
          if ([...originAccessControls.values()].some((o) => textAt(o.config, "Name") === name)) {
            throw new FakeAwsError(
              "OriginAccessControlAlreadyExists",
              409,
              `An origin access control named ${name} already exists.`,
            );
          }
          const o: FakeOriginAccessControl = {
            id: nextId("EOFAKE", "oac"),
            etag: nextEtag(),
            config,
          };
          originAccessControls.set(o.id, o);
          return xmlResponse(oacXml(o), 201, {
            etag: o.etag,
            location: `${origin}${VERSION}/origin-access-control/${o.id}`,
          });
        });
      }
      if (id === undefined && m === "GET") {
        return call(
          "ListOriginAccessControls",
          () =>
            listXml(
              "OriginAccessControlList",
              [...originAccessControls.values()],
              q,
              (o) => o.id,
              (o) =>
                `<OriginAccessControlSummary>${
                  xml({
                    Id: o.id,
                    Description: textAt(o.config, "Description") ?? "",
                    Name: textAt(o.config, "Name"),
                    SigningProtocol: textAt(o.config, "SigningProtocol"),
                    SigningBehavior: textAt(o.config, "SigningBehavior"),
                    OriginAccessControlOriginType: textAt(
                      o.config,
                      "OriginAccessControlOriginType",
                    ),
                  })
                }</OriginAccessControlSummary>`,
            ),
        );
      }
      if (id !== undefined && sub === undefined && m === "GET") {
        return call("GetOriginAccessControl", () => {
          const o = oac(id);
          return xmlResponse(oacXml(o), 200, { etag: o.etag });
        }, { Id: id });
      }
      if (id !== undefined && sub === "config" && m === "GET") {
        return call("GetOriginAccessControlConfig", () => {
          const o = oac(id);
          return xmlResponse(renderNode(o.config), 200, { etag: o.etag });
        }, { Id: id });
      }
      if (id !== undefined && sub === "config" && m === "PUT") {
        return call("UpdateOriginAccessControl", () => {
          const o = oac(id);
          checkIfMatch(ifMatch, o.etag);
          o.config = bodyOrFail();
          o.etag = nextEtag();
          return xmlResponse(oacXml(o), 200, { etag: o.etag });
        }, { Id: id });
      }
      if (id !== undefined && sub === undefined && m === "DELETE") {
        return call("DeleteOriginAccessControl", () => {
          const o = oac(id);
          checkIfMatch(ifMatch, o.etag);
          const user = [...distributions.values()].find((d) =>
            (at(d.config, "Origins/Items")?.children ?? []).some((x) =>
              textAt(x, "OriginAccessControlId") === id
            )
          );
          if (user) {
            throw new FakeAwsError(
              "OriginAccessControlInUse",
              409,
              `The origin access control is in use by ${user.id}.`,
            );
          }
          originAccessControls.delete(id);
          return new Response(null, { status: 204 });
        }, { Id: id });
      }
    }
    return undefined;
  };

  return startFakeServer({
    service: "cloudfront",
    route,
    renderError: (err) => restXmlError(XMLNS, err),
  }, state).fake;
}

/** CloudFront Functions' code size limit, in bytes. */
const FUNCTION_CODE_LIMIT = 10_240;

/** Every function ARN a distribution configuration associates, in any cache behaviour. */
function functionArnsOf(config: XmlNode): string[] {
  const behaviours = [
    child(config, "DefaultCacheBehavior"),
    ...(at(config, "CacheBehaviors/Items")?.children ?? []),
  ];
  return behaviours.flatMap((b) =>
    (at(b, "FunctionAssociations/Items")?.children ?? []).map((i) => textAt(i, "FunctionARN") ?? "")
  );
}

/** CloudFront rejects any list whose `Quantity` disagrees with its `Items`. */
function checkQuantities(node: XmlNode): void {
  const quantity = child(node, "Quantity");
  if (quantity) {
    const count = child(node, "Items")?.children.length ?? 0;
    if (Number(quantity.text) !== count) {
      throw new FakeAwsError(
        "InvalidArgument",
        400,
        `${node.name}: Quantity ${quantity.text} does not match the ${count} items given.`,
      );
    }
  }
  for (const c of node.children) checkQuantities(c);
}

/**
 * Creates, through the SDK, the origin access control a test distribution needs.
 *
 * @param client a CloudFront client pointed at the fake
 * @returns the control's id
 */
export async function createTestOac(client: CloudFrontClient): Promise<string> {
  const created = await client.send(
    new CreateOriginAccessControlCommand({
      OriginAccessControlConfig: {
        Name: "prod-site",
        SigningProtocol: "sigv4",
        SigningBehavior: "always",
        OriginAccessControlOriginType: "s3",
      },
    }),
  );
  return created.OriginAccessControl!.Id!;
}
