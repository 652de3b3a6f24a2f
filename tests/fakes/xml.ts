/**
 * Just enough XML for the REST-XML and Query fakes: parse what the AWS SDK serializes
 * (elements, text, entities; attributes are ignored) and build responses.
 *
 * @module
 */

/** A parsed XML element: its name, child elements in order, and its own text. */
export interface XmlNode {
  /** The element's local name. */
  name: string;
  /** Child elements in document order. */
  children: XmlNode[];
  /** The element's text content (trimmed; empty when it only has children). */
  text: string;
}

/** A value `xml()` can render: text, a number/boolean, nested elements, or nothing. */
export type XmlValue =
  | string
  | number
  | boolean
  | Date
  | undefined
  | null
  | XmlNode
  | XmlValue[]
  | { [name: string]: XmlValue };

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
};

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (whole, e: string) => {
    if (e.startsWith("#x")) return String.fromCodePoint(parseInt(e.slice(2), 16));
    if (e.startsWith("#")) return String.fromCodePoint(parseInt(e.slice(1), 10));
    return ENTITIES[e] ?? whole;
  });
}

/** Escapes text for an XML element body. */
export function escapeXml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;").replace(/\r/g, "&#13;");
}

/**
 * Parses an XML document into its root element.
 *
 * @param source the document text
 * @returns the root element
 * @throws Error when the document is not well formed
 */
export function parseXml(source: string): XmlNode {
  const token =
    /<!\[CDATA\[([\s\S]*?)\]\]>|<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[^\s=>/]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|([^<]+)/g;
  const root: XmlNode = { name: "#document", children: [], text: "" };
  const stack: XmlNode[] = [root];
  let match: RegExpExecArray | null;
  while ((match = token.exec(source)) !== null) {
    const [, cdata, closing, rawName, , selfClosing, text] = match;
    const top = stack[stack.length - 1]!;
    if (cdata !== undefined) top.text += cdata;
    else if (text !== undefined) top.text += decodeEntities(text);
    else if (rawName !== undefined) {
      const name = rawName.includes(":") ? rawName.slice(rawName.indexOf(":") + 1) : rawName;
      if (closing) {
        if (top.name !== name) throw new Error(`XML: </${name}> closes <${top.name}>`);
        top.text = top.children.length > 0 ? top.text.trim() : top.text;
        stack.pop();
      } else {
        const node: XmlNode = { name, children: [], text: "" };
        top.children.push(node);
        if (!selfClosing) stack.push(node);
      }
    }
  }
  if (stack.length !== 1) throw new Error(`XML: unclosed <${stack[stack.length - 1]!.name}>`);
  const first = root.children[0];
  if (!first) throw new Error("XML: no root element");
  return first;
}

/** The first child element called `name`, if any. */
export function child(node: XmlNode | undefined, name: string): XmlNode | undefined {
  return node?.children.find((c) => c.name === name);
}

/** Follows a `/`-separated path of child names; `undefined` when any step is missing. */
export function at(node: XmlNode | undefined, path: string): XmlNode | undefined {
  return path.split("/").reduce<XmlNode | undefined>((n, step) => child(n, step), node);
}

/** The text at a path, or `undefined`. */
export function textAt(node: XmlNode | undefined, path: string): string | undefined {
  return at(node, path)?.text;
}

/** The texts of every child element of the node at `path` (e.g. `Aliases/Items` → CNAMEs). */
export function textsAt(node: XmlNode | undefined, path: string): string[] {
  return at(node, path)?.children.map((c) => c.text) ?? [];
}

/** Renders a parsed element back to XML. */
export function renderNode(node: XmlNode): string {
  const body = node.children.length > 0
    ? node.children.map(renderNode).join("")
    : escapeXml(node.text);
  return `<${node.name}>${body}</${node.name}>`;
}

/**
 * Renders a value as XML element content: strings are escaped, arrays repeat, objects become
 * elements named by their keys (an array value repeats the element once per item), `XmlNode`s
 * are copied, `undefined`/`null` are omitted.
 *
 * @example
 * ```ts
 * // <Tags><Items><Tag><Key>app</Key><Value>site</Value></Tag></Items></Tags>
 * xml({ Tags: { Items: { Tag: [{ Key: "app", Value: "site" }] } } });
 * ```
 */
export function xml(value: XmlValue): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return escapeXml(value);
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(xml).join("");
  if (isNode(value)) return renderNode(value);
  return Object.entries(value).map(([name, v]) => {
    if (v === undefined || v === null) return "";
    if (Array.isArray(v)) return v.map((item) => `<${name}>${xml(item)}</${name}>`).join("");
    return `<${name}>${xml(v)}</${name}>`;
  }).join("");
}

function isNode(value: object): value is XmlNode {
  return "name" in value && "children" in value && "text" in value &&
    Array.isArray((value as XmlNode).children);
}

/** An XML response with the standard declaration and content type. */
export function xmlResponse(
  body: string,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  return new Response(`<?xml version="1.0" encoding="UTF-8"?>\n${body}`, {
    status,
    headers: { "content-type": "text/xml", ...headers },
  });
}
