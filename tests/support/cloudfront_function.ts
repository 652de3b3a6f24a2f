/**
 * Runs a CloudFront Function's source in the tests the way CloudFront runs it: the very text
 * that is (or was) deployed, with only an export of `handler` appended so the module system
 * can hand it over, called with `cloudfront-js-2.0` viewer-request events.
 *
 * @module
 */

/** A header, query parameter or cookie value in a CloudFront Functions event. */
export interface FunctionValue {
  /** The value. */
  value: string;
}

/** The request of a viewer-request event (what a function may change and return). */
export interface ViewerRequest {
  /** HTTP method. */
  method: string;
  /** The path, without the query string. */
  uri: string;
  /** Query parameters by name. */
  querystring: Record<string, FunctionValue>;
  /** Headers by lower-case name. */
  headers: Record<string, FunctionValue>;
  /** Cookies by name. */
  cookies: Record<string, FunctionValue>;
}

/** A response a viewer-request function may return instead of the request. */
export interface ViewerResponse {
  /** HTTP status. */
  statusCode: number;
  /** Reason phrase. */
  statusDescription?: string;
}

/** A `cloudfront-js-2.0` viewer-request event. */
export interface ViewerRequestEvent {
  /** Event format version (`1.0`). */
  version: string;
  /** Context CloudFront adds (distribution, event type, request id). */
  context: { distributionDomainName: string; eventType: "viewer-request"; requestId: string };
  /** The viewer. */
  viewer: { ip: string };
  /** The request. */
  request: ViewerRequest;
}

/** A loaded viewer-request handler. */
export type ViewerRequestHandler = (
  event: ViewerRequestEvent,
) => ViewerRequest | ViewerResponse;

/**
 * Loads a function's source as CloudFront would run it.
 *
 * @param code the function's JavaScript, exactly as deployed
 * @returns its `handler`
 */
export async function loadViewerRequestHandler(code: string): Promise<ViewerRequestHandler> {
  const url = `data:text/javascript;charset=utf-8,${
    encodeURIComponent(`${code}\nexport { handler };\n`)
  }`;
  const mod: { handler: ViewerRequestHandler } = await import(url);
  return mod.handler;
}

/**
 * A viewer-request event for a URL, as CloudFront builds it: the `Host` header as the viewer
 * sent it, the path as `uri`, the query string split into `querystring`.
 *
 * @param url the requested URL (its host, with any port, becomes the `Host` header)
 * @param host overrides the `Host` header (upper case, a port, a trailing dot …)
 * @returns the event
 */
export function viewerRequestEvent(url: string, host?: string): ViewerRequestEvent {
  const u = new URL(url);
  const querystring: Record<string, FunctionValue> = {};
  for (const [k, v] of u.searchParams) querystring[k] = { value: v };
  return {
    version: "1.0",
    context: {
      distributionDomainName: "d111111abcdef8.cloudfront.net",
      eventType: "viewer-request",
      requestId: "4TyzHTaYWb1GX1qTfsHhEqV6HUDd_BzoBZnwfnvQc_1oF26ClkoUSEQ==",
    },
    viewer: { ip: "198.51.100.11" },
    request: {
      method: "GET",
      uri: u.pathname,
      querystring,
      headers: { host: { value: host ?? u.host }, accept: { value: "text/html" } },
      cookies: {},
    },
  };
}

/**
 * Whether a handler's result is a response (the function answered itself).
 *
 * @param out what the handler returned
 * @returns true for a response
 */
export function isViewerResponse(out: ViewerRequest | ViewerResponse): out is ViewerResponse {
  return "statusCode" in out;
}
