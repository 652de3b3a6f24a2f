/**
 * A loopback fake of AWS IAM (Query protocol): OpenID Connect providers, roles, their inline
 * policies and tags. Policy documents come back URL-encoded, as real IAM returns them.
 *
 * @module
 */

import { type AwsFake, FakeAwsError, startFakeServer } from "./server.ts";
import {
  memberList,
  type QueryParams,
  queryService,
  requireParam,
  tagList,
  tagMembers,
} from "./query.ts";
import type { XmlValue } from "./xml.ts";

/** An OIDC provider held by the fake. */
export interface FakeOidcProvider {
  /** `arn:aws:iam::<account>:oidc-provider/<host/path>`. */
  arn: string;
  /** The issuer URL as given (with `https://`). */
  url: string;
  /** Audiences. */
  clientIds: string[];
  /** Certificate thumbprints (may be empty). */
  thumbprints: string[];
  /** Tags, in insertion order. */
  tags: Map<string, string>;
  /** When it was created. */
  createDate: Date;
}

/** A role held by the fake. */
export interface FakeRole {
  /** The role name. */
  name: string;
  /** The generated `AROA…` id. */
  roleId: string;
  /** `arn:aws:iam::<account>:role<path><name>`. */
  arn: string;
  /** The role path (default `/`). */
  path: string;
  /** The trust policy, as JSON text (decoded). */
  assumeRolePolicyDocument: string;
  /** The description, if any. */
  description: string | undefined;
  /** Max session duration in seconds. */
  maxSessionDuration: number;
  /** Tags, in insertion order. */
  tags: Map<string, string>;
  /** Inline policies by name, as JSON text (decoded). */
  inlinePolicies: Map<string, string>;
  /** When it was created. */
  createDate: Date;
}

/** The IAM fake's state. */
export interface IamFakeState {
  /** The account the ARNs name. */
  readonly accountId: string;
  /** OIDC providers by ARN. */
  readonly oidcProviders: Map<string, FakeOidcProvider>;
  /** Roles by name. */
  readonly roles: Map<string, FakeRole>;
}

/** Options for {@link startIamFake}. */
export interface IamFakeOptions {
  /** The account id in ARNs (default `123456789012`). */
  accountId?: string;
  /** The clock for `CreateDate` (default: system time). */
  now?: () => Date;
}

/**
 * Starts the IAM fake on a free loopback port.
 *
 * Errors follow IAM: `NoSuchEntity` (404), `EntityAlreadyExists` (409), `DeleteConflict` (409,
 * deleting a role that still has inline policies), `MalformedPolicyDocument` (400, not JSON).
 *
 * @param options account id and clock
 * @returns the fake; `await using` stops it
 * @example
 * ```ts
 * import { IAMClient } from "@aws-sdk/client-iam";
 * import { testAwsConfig } from "../support/s3.ts";
 *
 * await using iam = startIamFake();
 * const sdk = new IAMClient({ ...testAwsConfig, endpoint: iam.endpoint });
 * ```
 */
export function startIamFake(options: IamFakeOptions = {}): AwsFake<IamFakeState> {
  const accountId = options.accountId ?? "123456789012";
  const now = options.now ?? (() => new Date());
  const state: IamFakeState = { accountId, oidcProviders: new Map(), roles: new Map() };
  let roleCounter = 0;

  const provider = (params: QueryParams): FakeOidcProvider => {
    const arn = requireParam(params, "OpenIDConnectProviderArn");
    const found = state.oidcProviders.get(arn);
    if (!found) throw noSuchEntity(`OpenIDConnect provider not found for arn ${arn}`);
    return found;
  };
  const role = (params: QueryParams): FakeRole => {
    const name = requireParam(params, "RoleName");
    const found = state.roles.get(name);
    if (!found) throw noSuchEntity(`The role with name ${name} cannot be found.`);
    return found;
  };
  const roleXml = (r: FakeRole): XmlValue => ({
    Path: r.path,
    RoleName: r.name,
    RoleId: r.roleId,
    Arn: r.arn,
    CreateDate: r.createDate,
    AssumeRolePolicyDocument: encodeURIComponent(r.assumeRolePolicyDocument),
    Description: r.description,
    MaxSessionDuration: r.maxSessionDuration,
    Tags: r.tags.size > 0 ? tagMembers(r.tags) : undefined,
    RoleLastUsed: {},
  });

  const definition = queryService("iam", "https://iam.amazonaws.com/doc/2010-05-08/", {
    CreateOpenIDConnectProvider(params) {
      const url = requireParam(params, "Url");
      const arn = `arn:aws:iam::${accountId}:oidc-provider/${url.replace(/^https:\/\//, "")}`;
      if (state.oidcProviders.has(arn)) {
        throw new FakeAwsError(
          "EntityAlreadyExists",
          409,
          `Provider with url ${url} already exists.`,
        );
      }
      const tags = tagList(params);
      state.oidcProviders.set(arn, {
        arn,
        url,
        clientIds: memberList(params, "ClientIDList"),
        thumbprints: memberList(params, "ThumbprintList"),
        tags,
        createDate: now(),
      });
      return { OpenIDConnectProviderArn: arn, Tags: tags.size > 0 ? tagMembers(tags) : undefined };
    },
    GetOpenIDConnectProvider(params) {
      const p = provider(params);
      return {
        // Real IAM reports the issuer without its scheme.
        Url: p.url.replace(/^https:\/\//, ""),
        ClientIDList: { member: p.clientIds },
        ThumbprintList: { member: p.thumbprints },
        CreateDate: p.createDate,
        Tags: tagMembers(p.tags),
      };
    },
    ListOpenIDConnectProviders: () => ({
      OpenIDConnectProviderList: {
        member: [...state.oidcProviders.keys()].map((Arn) => ({ Arn })),
      },
    }),
    DeleteOpenIDConnectProvider(params) {
      state.oidcProviders.delete(provider(params).arn);
      return undefined;
    },
    CreateRole(params) {
      const name = requireParam(params, "RoleName");
      if (state.roles.has(name)) {
        throw new FakeAwsError(
          "EntityAlreadyExists",
          409,
          `Role with name ${name} already exists.`,
        );
      }
      const path = params.Path ?? "/";
      const r: FakeRole = {
        name,
        roleId: `AROAFAKE${String(++roleCounter).padStart(13, "0")}`,
        arn: `arn:aws:iam::${accountId}:role${path}${name}`,
        path,
        assumeRolePolicyDocument: policyJson(requireParam(params, "AssumeRolePolicyDocument")),
        description: params.Description,
        maxSessionDuration: Number(params.MaxSessionDuration ?? 3600),
        tags: tagList(params),
        inlinePolicies: new Map(),
        createDate: now(),
      };
      state.roles.set(name, r);
      return { Role: roleXml(r) };
    },
    GetRole: (params) => ({ Role: roleXml(role(params)) }),
    DeleteRole(params) {
      const r = role(params);
      if (r.inlinePolicies.size > 0) {
        throw new FakeAwsError(
          "DeleteConflict",
          409,
          "Cannot delete entity, must delete policies first.",
        );
      }
      state.roles.delete(r.name);
      return undefined;
    },
    PutRolePolicy(params) {
      const r = role(params);
      r.inlinePolicies.set(
        requireParam(params, "PolicyName"),
        policyJson(requireParam(params, "PolicyDocument")),
      );
      return undefined;
    },
    GetRolePolicy(params) {
      const r = role(params);
      const name = requireParam(params, "PolicyName");
      const doc = r.inlinePolicies.get(name);
      if (doc === undefined) {
        throw noSuchEntity(`The role policy with name ${name} cannot be found.`);
      }
      return { RoleName: r.name, PolicyName: name, PolicyDocument: encodeURIComponent(doc) };
    },
    DeleteRolePolicy(params) {
      const r = role(params);
      const name = requireParam(params, "PolicyName");
      if (!r.inlinePolicies.delete(name)) {
        throw noSuchEntity(`The role policy with name ${name} cannot be found.`);
      }
      return undefined;
    },
    ListRolePolicies: (params) => ({
      PolicyNames: { member: [...role(params).inlinePolicies.keys()] },
      IsTruncated: false,
    }),
    TagRole(params) {
      const r = role(params);
      for (const [k, v] of tagList(params)) r.tags.set(k, v);
      return undefined;
    },
    ListRoleTags: (params) => ({ Tags: tagMembers(role(params).tags), IsTruncated: false }),
    UpdateAssumeRolePolicy(params) {
      role(params).assumeRolePolicyDocument = policyJson(requireParam(params, "PolicyDocument"));
      return undefined;
    },
  });
  return startFakeServer(definition, state).fake;
}

function noSuchEntity(message: string): FakeAwsError {
  return new FakeAwsError("NoSuchEntity", 404, message);
}

function policyJson(text: string): string {
  try {
    JSON.parse(text);
  } catch {
    throw new FakeAwsError("MalformedPolicyDocument", 400, "Syntax errors in policy.");
  }
  return text;
}
