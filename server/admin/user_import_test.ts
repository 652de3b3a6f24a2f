import assert from "node:assert/strict";
import { FixedClock, seededRandom } from "@org/shared";
import { createIdFactory, isUserId } from "../store/ids.ts";
import { exportLine, parseImport } from "./user_import.ts";

const ids = () => createIdFactory(new FixedClock(0), seededRandom("import"));
const line = (u: Record<string, unknown>) => JSON.stringify(u);
const base = { provider: "idp", external_id: "e1", email: "e1@example.com" };

Deno.test("parseImport() gives a line without id a new usr_ id and keeps a given one", () => {
  const id = "usr_01JD7ZQ3N8V4X2K9M5T6R1W0YB";
  const { parsed, problems } = parseImport(
    [line(base), "", line({ ...base, external_id: "e2", id })].join("\n"),
    ids(),
    1000,
  );
  assert.deepEqual(problems, []);
  assert.ok(isUserId(parsed[0]!.user.id));
  assert.equal(parsed[0]!.givenId, false);
  assert.equal(parsed[1]!.user.id, id);
  assert.equal(parsed[1]!.line, 3);
  assert.equal(parsed[0]!.user.status, "active");
  assert.equal(parsed[0]!.user.display_name, "e1@example.com");
});

Deno.test("parseImport() names duplicate ids and identities by line", () => {
  const id = "usr_01JD7ZQ3N8V4X2K9M5T6R1W0YB";
  const { problems } = parseImport(
    [line({ ...base, id }), line({ ...base, external_id: "e2", id }), line(base)].join("\n"),
    ids(),
    0,
  );
  assert.deepEqual(problems, [
    { line: 2, reason: `id ${id} is also on line 1` },
    { line: 3, reason: "this provider identity is also on line 1" },
  ]);
});

Deno.test("exportLine() writes every field an import reads back to the same user", () => {
  const user = {
    id: "usr_01JD7ZQ3N8V4X2K9M5T6R1W0YB",
    ...base,
    display_name: "E",
    status: "suspended",
    metadata: { a: 1 },
    claims: { role: "x" },
    created_at: Date.UTC(2024, 0, 1),
    updated_at: Date.UTC(2025, 0, 1),
  };
  const { parsed } = parseImport(exportLine(user), ids(), 5);
  assert.deepEqual(parsed[0]!.user, { ...user, updated_at: 5 });
});
