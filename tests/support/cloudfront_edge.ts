/**
 * Serves a viewer request the way the deployed CloudFront stack would, from the fakes' state:
 * find the distribution whose alias (or own `*.cloudfront.net` domain) matches the host, run
 * the viewer-request function it associates (the code PUBLISHED to its LIVE stage in the
 * CloudFront fake: exactly what the tool deployed), then fetch the rewritten URI from the
 * distribution's bucket origin in S3 (origin path prepended), and on an error answer the
 * distribution's custom error response for its status (the page fetched from the origin, with
 * the response code configured; the origin's status when the page is missing, as CloudFront
 * does). So a test checks what a visitor would
 * get, through the deployed function, the bucket keys and the error pages.
 *
 * @module
 */
import { GetObjectCommand, type S3Client } from "@aws-sdk/client-s3";
import type { CloudFrontFakeState } from "../fakes/cloudfront.ts";
import { at, textAt, textsAt } from "../fakes/xml.ts";
import {
  isViewerResponse,
  loadViewerRequestHandler,
  viewerRequestEvent,
} from "./cloudfront_function.ts";

/** What the visitor gets. */
export interface EdgeAnswer {
  /** HTTP status. */
  status: number;
  /** The body (for 200). */
  body: string;
  /** The S3 key asked for, when the request reached the bucket. */
  key?: string;
}

function aliasMatches(alias: string, host: string): boolean {
  const a = alias.toLowerCase();
  if (!a.startsWith("*.")) return a === host;
  const rest = host.slice(host.indexOf(".") + 1);
  return host.includes(".") && rest === a.slice(2);
}

/**
 * Answers `GET <url>` through the fakes.
 *
 * @param cloudfront the CloudFront fake's state
 * @param s3 an S3 client for the bucket origin
 * @param url the URL a visitor opens (its host picks the distribution and the preview)
 * @param headers request headers the visitor sends (lower-case names), e.g. `authorization`
 * @returns status, body and the key read
 */
export async function requestThroughEdge(
  cloudfront: CloudFrontFakeState,
  s3: S3Client,
  url: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<EdgeAnswer> {
  const host = new URL(url).hostname.toLowerCase();
  // A distribution answers on its own *.cloudfront.net domain as well as on its aliases.
  const dist = [...cloudfront.distributions.values()].find((d) =>
    d.domainName === host || textsAt(d.config, "Aliases/Items").some((a) => aliasMatches(a, host))
  );
  if (!dist) return { status: 421, body: "no distribution serves this host" };
  let uri = new URL(url).pathname;
  const association =
    (at(dist.config, "DefaultCacheBehavior/FunctionAssociations/Items")?.children ?? [])
      .find((a) => textAt(a, "EventType") === "viewer-request");
  if (association) {
    const arn = textAt(association, "FunctionARN");
    const fn = [...cloudfront.functions.values()].find((f) => f.arn === arn);
    if (!fn?.live) throw new Error(`function ${arn} is not published to LIVE`);
    const handler = await loadViewerRequestHandler(fn.live.code);
    const event = viewerRequestEvent(url);
    for (const [name, value] of Object.entries(headers)) event.request.headers[name] = { value };
    const out = handler(event);
    if (isViewerResponse(out)) return { status: out.statusCode, body: "" };
    uri = out.uri;
  }
  const origin = at(dist.config, "Origins/Items")?.children[0];
  const domain = textAt(origin, "DomainName") ?? "";
  const bucket = domain.slice(0, domain.indexOf(".s3."));
  const fetchOrigin = async (path: string): Promise<EdgeAnswer> => {
    const key = `${textAt(origin, "OriginPath") ?? ""}${path}`.replace(/^\//, "");
    try {
      const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return { status: 200, body: await got.Body?.transformToString() ?? "", key };
    } catch (err) {
      const status = (err as { $metadata?: { httpStatusCode?: number } }).$metadata
        ?.httpStatusCode;
      return { status: status ?? 500, body: "", key };
    }
  };
  const answer = await fetchOrigin(uri);
  if (answer.status < 400) return answer;
  const custom = (at(dist.config, "CustomErrorResponses/Items")?.children ?? [])
    .find((r) => textAt(r, "ErrorCode") === String(answer.status));
  const page = textAt(custom, "ResponsePagePath");
  if (!custom || !page) return answer;
  const shown = await fetchOrigin(page);
  if (shown.status !== 200) return answer;
  return {
    ...answer,
    status: Number(textAt(custom, "ResponseCode") ?? answer.status),
    body: shown.body,
  };
}
