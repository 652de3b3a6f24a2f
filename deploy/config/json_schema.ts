/**
 * Generates the published JSON Schema (`deploy/config.schema.json`) from the same
 * definitions the validator uses, so editors complete and check exactly what the CLI accepts.
 *
 * @module
 */
import { HTTPS_OR_LOOPBACK_PATTERN } from "@org/shared";
import type { Field, ObjectField } from "./field.ts";
import { SITE_SCHEMA } from "./schema.ts";

/** A JSON Schema document (draft 2020-12), as plain data. */
export type JsonSchema = { [key: string]: unknown };

/** Where the schema is published relative to the deploy member. */
export const SCHEMA_FILE = "config.schema.json";

/**
 * The JSON Schema of the site configuration file.
 *
 * @returns the schema document
 *
 * @example
 * ```ts
 * JSON.stringify(siteJsonSchema(), null, 2);
 * ```
 */
export function siteJsonSchema(): JsonSchema {
  const body = toJsonSchema(SITE_SCHEMA);
  const properties = body.properties as Record<string, JsonSchema>;
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    title: "deploy site configuration",
    ...body,
    properties: {
      $schema: { type: "string", description: "JSON Schema reference, for editor completion." },
      ...properties,
    },
  };
}

/**
 * The schema text exactly as committed: two-space indentation and a final newline.
 *
 * @returns the file contents of `deploy/config.schema.json`
 */
export function siteJsonSchemaText(): string {
  return JSON.stringify(siteJsonSchema(), null, 2) + "\n";
}

function toJsonSchema(field: Field): JsonSchema {
  const doc: JsonSchema = {
    description: field.derivedDefault
      ? `${field.description} Default: ${field.derivedDefault}.`
      : field.description,
  };
  switch (field.kind) {
    case "string":
      doc.type = "string";
      if (field.nonBlank) doc.minLength = 1;
      if (field.minLength !== undefined) doc.minLength = field.minLength;
      if (field.maxLength !== undefined) doc.maxLength = field.maxLength;
      if (field.pattern) doc.pattern = field.pattern.regex;
      if (field.notPattern) doc.not = { pattern: field.notPattern.regex };
      if (field.httpsUrl) {
        Object.assign(doc, {
          format: "uri",
          pattern: field.loopbackHttp ? HTTPS_OR_LOOPBACK_PATTERN : "^https://",
        });
      }
      break;
    case "number":
      if (field.oneOf) doc.enum = [...field.oneOf];
      else {
        doc.type = field.integer ? "integer" : "number";
        if (field.minimum !== undefined) doc.minimum = field.minimum;
        if (field.maximum !== undefined) doc.maximum = field.maximum;
      }
      break;
    case "boolean":
      doc.type = "boolean";
      break;
    case "enum":
      doc.enum = [...field.values];
      break;
    case "list":
      doc.type = "array";
      doc.items = toJsonSchema(field.items);
      if (field.maxItems !== undefined) doc.maxItems = field.maxItems;
      break;
    case "map":
      doc.type = "object";
      doc.propertyNames = toJsonSchema(field.keys);
      doc.additionalProperties = toJsonSchema(field.values);
      break;
    case "object":
      return objectSchema(field, doc);
    case "deferred":
      return objectSchema(field.schema, doc);
  }
  if ("default" in field && field.default !== undefined) doc.default = field.default;
  return doc;
}

function objectSchema(field: ObjectField, doc: JsonSchema): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const [key, sub] of Object.entries(field.fields)) properties[key] = toJsonSchema(sub);
  return {
    ...doc,
    type: "object",
    properties,
    ...(field.required?.length ? { required: [...field.required] } : {}),
    additionalProperties: false,
  };
}
