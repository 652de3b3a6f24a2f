import assert from "node:assert/strict";
import { DeployError } from "../errors.ts";
import {
  atprotoJson,
  parseAtprotoJson,
  parseAtUri,
  publicationKey,
  publicationRecord,
} from "./publication.ts";

const DID = "did:plc:ewvi7nxzyoun6zhxrhs64oiz";
const URI = `at://${DID}/site.standard.publication/3lwafzkjqm25s`;

Deno.test("publicationKey() reuses the record the well-known file names", () => {
  assert.equal(publicationKey(URI + "\n", DID, 0, 0), "3lwafzkjqm25s");
});

Deno.test("publicationKey() makes a TID from the clock for a first init", () => {
  const key = publicationKey(null, DID, Date.UTC(2026, 10, 23), 5);
  assert.match(key, /^[234567a-j][2-7a-z]{12}$/);
  assert.equal(key, publicationKey("", DID, Date.UTC(2026, 10, 23), 5));
});

Deno.test("publicationKey() refuses a well-known file of another account", () => {
  const other = "at://did:plc:aaaaaaaaaaaaaaaaaaaaaaaa/site.standard.publication/3lwafzkjqm25s";
  assert.throws(() => publicationKey(other, DID, 0, 0), (err) => {
    assert.ok(err instanceof DeployError);
    assert.equal(err.code, "publication_foreign");
    assert.match(err.message, /did:plc:aaaa/);
    return true;
  });
  assert.throws(() => publicationKey("garbage", DID, 0, 0), DeployError);
});

Deno.test("publicationRecord() keeps the owner's preferences and sets url, name, description", () => {
  const existing = { $type: "site.standard.publication", name: "Old", preferences: { x: 1 } };
  assert.deepEqual(
    publicationRecord(existing, { url: "https://blog.example", name: "Blog", description: "D" }),
    {
      $type: "site.standard.publication",
      name: "Blog",
      url: "https://blog.example",
      description: "D",
      preferences: { x: 1 },
    },
  );
});

Deno.test("atprotoJson() round-trips and rejects a mismatched DID", () => {
  assert.deepEqual(parseAtprotoJson(atprotoJson(DID, URI)), { did: DID, publicationUri: URI });
  assert.equal(parseAtprotoJson(atprotoJson("did:plc:other", URI)), undefined);
  assert.equal(parseAtprotoJson("{"), undefined);
  assert.deepEqual(parseAtUri(URI), {
    did: DID,
    collection: "site.standard.publication",
    rkey: "3lwafzkjqm25s",
  });
});
