/**
 * A minimal loopback CloudFront that answers `CreateInvalidation` in the REST-XML wire format
 * and records each request, so the real SDK client's serialization is exercised.
 *
 * @module
 */

/** One invalidation the fake received. */
export interface RecordedInvalidation {
  /** The distribution id from the URL. */
  readonly distributionId: string;
  /** The caller reference. */
  readonly callerReference: string;
  /** The paths, in request order. */
  readonly paths: string[];
}

/** A running fake and what it received. */
export interface CloudFrontFake extends AsyncDisposable {
  /** `http://127.0.0.1:<port>`, the client's `endpoint`. */
  readonly endpoint: string;
  /** Every invalidation received, oldest first. */
  readonly invalidations: RecordedInvalidation[];
  /**
   * While true, every invalidation is refused as CloudFront refuses one past its limit of
   * concurrent invalidations (400 `TooManyInvalidationsInProgress`), and not recorded.
   */
  refusing: boolean;
  /** Stops the server. */
  close(): Promise<void>;
}

const ROUTE = /^\/2020-05-31\/distribution\/([^/]+)\/invalidation$/;

/**
 * Starts the fake on 127.0.0.1, port 0.
 *
 * @returns the fake; `await using` stops it
 */
export function startCloudFrontFake(): CloudFrontFake {
  const invalidations: RecordedInvalidation[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const match = ROUTE.exec(new URL(req.url).pathname);
    if (req.method !== "POST" || !match) return new Response("not found", { status: 404 });
    const xml = await req.text();
    const callerReference = /<CallerReference>([^<]*)<\/CallerReference>/.exec(xml)?.[1] ?? "";
    const paths = [...xml.matchAll(/<Path>([^<]*)<\/Path>/g)].map((m) => unescapeXml(m[1]!));
    const distributionId = decodeURIComponent(match[1]!);
    if (fake.refusing) {
      return new Response(
        `<?xml version="1.0"?><ErrorResponse xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Error><Type>Sender</Type><Code>TooManyInvalidationsInProgress</Code><Message>Processing your request will cause you to exceed the maximum number of in-progress wildcard invalidations.</Message></Error><RequestId>r1</RequestId></ErrorResponse>`,
        { status: 400, headers: { "content-type": "text/xml" } },
      );
    }
    invalidations.push({ distributionId, callerReference, paths });
    const id = `I${invalidations.length}`;
    const items = paths.map((p) => `<Path>${escapeXml(p)}</Path>`).join("");
    const body = `<?xml version="1.0" encoding="UTF-8"?>
<Invalidation xmlns="http://cloudfront.amazonaws.com/doc/2020-05-31/"><Id>${id}</Id><Status>InProgress</Status><CreateTime>2024-01-01T00:00:00Z</CreateTime><InvalidationBatch><Paths><Quantity>${paths.length}</Quantity><Items>${items}</Items></Paths><CallerReference>${
      escapeXml(callerReference)
    }</CallerReference></InvalidationBatch></Invalidation>`;
    return new Response(body, {
      status: 201,
      headers: {
        "content-type": "text/xml",
        location: `${new URL(req.url).origin}${new URL(req.url).pathname}/${id}`,
      },
    });
  });
  const close = () => server.shutdown();
  const fake: CloudFrontFake = {
    endpoint: `http://127.0.0.1:${server.addr.port}`,
    invalidations,
    refusing: false,
    close,
    [Symbol.asyncDispose]: close,
  };
  return fake;
}

function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

function unescapeXml(s: string): string {
  return s.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(
    /&apos;/g,
    "'",
  ).replace(/&amp;/g, "&");
}
