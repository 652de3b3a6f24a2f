/**
 * The REST-XML error body CloudFront and Route 53 answer with:
 * `<ErrorResponse><Error><Type><Code><Message></Error><RequestId>`, `Type` `Receiver` for
 * server faults and `Sender` otherwise, so the SDK raises the exception class named by `Code`.
 *
 * @module
 */
import { type FakeAwsError, requestId } from "./server.ts";
import { escapeXml, xmlResponse } from "./xml.ts";

/**
 * Renders an error in the REST-XML `ErrorResponse` format.
 *
 * @param xmlns the service's response namespace
 * @param err the error
 * @returns the response
 */
export function restXmlError(xmlns: string, err: FakeAwsError): Response {
  return xmlResponse(
    `<ErrorResponse xmlns="${xmlns}"><Error><Type>${
      err.status >= 500 ? "Receiver" : "Sender"
    }</Type>` +
      `<Code>${escapeXml(err.code)}</Code><Message>${escapeXml(err.message)}</Message></Error>` +
      `<RequestId>${requestId()}</RequestId></ErrorResponse>`,
    err.status,
  );
}
