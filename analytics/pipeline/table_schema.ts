/**
 * Schema evolution of the page-view table (pure): which of the transform's columns a live
 * table lacks, and the Iceberg commit that adds them. Adding optional columns is a metadata
 * change only: no data file is rewritten, and rows written before read the new columns as null.
 *
 * @module
 */
import { ROW_COLUMNS } from "../transform/row.ts";
import {
  currentSchema,
  type IcebergCommit,
  type IcebergField,
  type IcebergTableMetadata,
} from "./iceberg_catalog.ts";

/** How a live table's schema compares with the transform's columns. */
export interface SchemaStatus {
  /** The table's current schema id (Iceberg `current-schema-id`): its schema version. */
  readonly id: number;
  /** The transform's columns the current schema lacks, in table order. */
  readonly missing: readonly string[];
}

/**
 * Compares the table's current schema with `ROW_COLUMNS` (pure). Columns the table has and the
 * transform does not are left alone: schema evolution only adds.
 *
 * @param metadata the table's Iceberg metadata
 * @returns the schema id and the missing columns
 */
export function schemaStatus(metadata: IcebergTableMetadata): SchemaStatus {
  const have = new Set(currentSchema(metadata).fields.map((f) => f.name));
  return {
    id: metadata["current-schema-id"],
    missing: ROW_COLUMNS.filter((c) => !have.has(c.name)).map((c) => c.name),
  };
}

/**
 * The commit that adds the missing columns (pure), or null when none is missing: a new schema
 * (the current fields, then the missing ones numbered after `last-column-id`) made current.
 * Its requirements make the commit fail, rather than overwrite, when the table changed since it
 * was read (another bootstrap, or a writer that evolved it).
 *
 * @param metadata the table's Iceberg metadata, as just loaded
 * @returns the commit, or null
 */
export function addColumnsCommit(metadata: IcebergTableMetadata): IcebergCommit | null {
  const current = currentSchema(metadata);
  const { missing } = schemaStatus(metadata);
  if (missing.length === 0) return null;
  const lastId = metadata["last-column-id"];
  const added: IcebergField[] = ROW_COLUMNS.filter((c) => missing.includes(c.name)).map((
    c,
    i,
  ) => ({
    id: lastId + 1 + i,
    name: c.name,
    type: c.type,
    // Iceberg adds only optional columns to a table that may hold rows.
    required: false,
    doc: c.doc,
  }));
  const schemaId = Math.max(...metadata.schemas.map((s) => s["schema-id"])) + 1;
  return {
    requirements: [
      { type: "assert-table-uuid", uuid: metadata["table-uuid"] },
      { type: "assert-current-schema-id", "current-schema-id": current["schema-id"] },
      { type: "assert-last-assigned-field-id", "last-assigned-field-id": lastId },
    ],
    updates: [
      {
        action: "add-schema",
        schema: { type: "struct", "schema-id": schemaId, fields: [...current.fields, ...added] },
      },
      // -1: the schema added by this commit (Iceberg REST spec).
      { action: "set-current-schema", "schema-id": -1 },
    ],
  };
}
