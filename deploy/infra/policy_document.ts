/**
 * IAM-style policy documents (bucket policies, trust and inline role policies) and comparing
 * them as data, since AWS returns them re-serialized (other key order, URL-encoded for IAM).
 *
 * @module
 */

/** A policy statement. */
export interface PolicyStatement {
  Sid?: string;
  Effect: "Allow" | "Deny";
  Principal?: "*" | Readonly<Record<string, string | readonly string[]>>;
  Action: string | readonly string[];
  Resource?: string | readonly string[];
  Condition?: Readonly<Record<string, Readonly<Record<string, string | readonly string[]>>>>;
}

/** A policy document. */
export interface PolicyDocument {
  Version: "2012-10-17";
  Statement: readonly PolicyStatement[];
}

/**
 * JSON with object keys sorted, so two serializations of one document compare equal.
 *
 * @param value any JSON value
 * @returns canonical JSON text
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * Whether a live policy text (plain or URL-encoded JSON) says the same as `desired`.
 *
 * @param liveText the document as AWS returned it
 * @param desired the desired document
 * @returns true when equal as data
 */
export function samePolicy(liveText: string | undefined, desired: PolicyDocument): boolean {
  if (liveText === undefined) return false;
  for (const text of [liveText, safeDecode(liveText)]) {
    try {
      if (canonicalJson(JSON.parse(text)) === canonicalJson(desired)) return true;
    } catch {
      // not JSON in this spelling; try the other
    }
  }
  return false;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
