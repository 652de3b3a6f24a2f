/**
 * The AWS Query wire format (IAM, STS): `POST /` with a form body `Action=…&Version=…&…`,
 * lists as `Name.member.N`, XML responses wrapped in `<ActionResponse><ActionResult>`, errors
 * as `<ErrorResponse><Error><Code>`.
 *
 * @module
 */

import { FakeAwsError, type FakeServiceDefinition, requestId } from "./server.ts";
import { escapeXml, xml, xmlResponse, type XmlValue } from "./xml.ts";

/** The flat form parameters of a Query request. */
export type QueryParams = Record<string, string>;

/** An operation of a Query fake: form parameters in, the `<ActionResult>` content out. */
export type QueryOperation = (params: QueryParams) => XmlValue;

/**
 * Builds the scaffold definition for a Query-protocol service.
 *
 * @param service the service name recorded in calls
 * @param xmlns the response namespace, e.g. `https://iam.amazonaws.com/doc/2010-05-08/`
 * @param operations the implemented operations by `Action`
 * @returns the definition for `startFakeServer`
 */
export function queryService(
  service: string,
  xmlns: string,
  operations: Record<string, QueryOperation>,
): FakeServiceDefinition {
  return {
    service,
    async route(req) {
      if (req.method !== "POST") return undefined;
      const params: QueryParams = Object.fromEntries(new URLSearchParams(await req.text()));
      const operation = params.Action;
      if (!operation) return undefined;
      const run = operations[operation];
      if (!run) throw new FakeAwsError("InvalidAction", 400, `${operation} is not faked`);
      return {
        operation,
        input: params,
        handle: () => {
          const result = xml(run(params));
          return xmlResponse(
            `<${operation}Response xmlns="${xmlns}"><${operation}Result>${result}</${operation}Result>` +
              `<ResponseMetadata><RequestId>${requestId()}</RequestId></ResponseMetadata>` +
              `</${operation}Response>`,
          );
        },
      };
    },
    renderError(err) {
      const type = err.status >= 500 ? "Receiver" : "Sender";
      return xmlResponse(
        `<ErrorResponse xmlns="${xmlns}"><Error><Type>${type}</Type>` +
          `<Code>${escapeXml(err.code)}</Code><Message>${escapeXml(err.message)}</Message>` +
          `</Error><RequestId>${requestId()}</RequestId></ErrorResponse>`,
        err.status,
      );
    },
  };
}

/** Reads a required parameter or throws Query's `ValidationError`. */
export function requireParam(params: QueryParams, name: string): string {
  const value = params[name];
  if (value === undefined || value === "") {
    throw new FakeAwsError(
      "ValidationError",
      400,
      `1 validation error detected: ${name} is required`,
    );
  }
  return value;
}

/** Reads a `Name.member.N` list. */
export function memberList(params: QueryParams, name: string): string[] {
  const out: string[] = [];
  for (let i = 1; params[`${name}.member.${i}`] !== undefined; i++) {
    out.push(params[`${name}.member.${i}`]!);
  }
  return out;
}

/** Reads a `Tags.member.N.Key/Value` list into a map, keeping order. */
export function tagList(params: QueryParams, name = "Tags"): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 1; params[`${name}.member.${i}.Key`] !== undefined; i++) {
    out.set(params[`${name}.member.${i}.Key`]!, params[`${name}.member.${i}.Value`] ?? "");
  }
  return out;
}

/** Renders tags as a Query `<member>` list value. */
export function tagMembers(tags: Map<string, string>): XmlValue {
  return { member: [...tags].map(([Key, Value]) => ({ Key, Value })) };
}
