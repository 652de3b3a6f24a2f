/**
 * `deno task schema`: writes `deploy/config.schema.json` from the schema definitions. A test
 * fails when the committed file differs, so run this after changing `schema.ts`.
 *
 * @module
 */
import { SCHEMA_FILE, siteJsonSchemaText } from "./json_schema.ts";

if (import.meta.main) {
  await Deno.writeTextFile(new URL(`../${SCHEMA_FILE}`, import.meta.url), siteJsonSchemaText());
}
