import assert from "node:assert/strict";
import { DeployError } from "../errors.ts";
import { generateClientKey } from "./client_key.ts";
import { clientJwks, clientMetadata } from "./client_metadata.ts";
import { checkDeployedDocuments } from "./deployed_documents.ts";

const ORIGIN = "https://blog.example";

/** A site answering each path with the given response. */
function site(pages: Record<string, () => Response>): typeof fetch {
  return (input) => {
    const path = new URL(String(input)).pathname;
    return Promise.resolve(pages[path]?.() ?? new Response("<h1>404</h1>", { status: 404 }));
  };
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "ok";
  } catch (err) {
    assert.ok(err instanceof DeployError, String(err));
    return `${err.code}: ${err.message}`;
  }
}

Deno.test("checkDeployedDocuments() accepts what keygen wrote, in any member order", async () => {
  const key = await generateClientKey(new Date());
  const reordered = Object.fromEntries(Object.entries(clientMetadata(ORIGIN, "Blog")).reverse());
  const fetcher = site({
    "/oauth/client-metadata.json": () => Response.json(reordered),
    "/oauth/jwks.json": () => Response.json(clientJwks(key)),
  });
  assert.equal(await codeOf(checkDeployedDocuments(ORIGIN, "Blog", key, fetcher)), "ok");
});

Deno.test("checkDeployedDocuments() says not deployed, not JSON, or what differs", async () => {
  const key = await generateClientKey(new Date());
  const other = await generateClientKey(new Date());
  const meta = () => Response.json(clientMetadata(ORIGIN, "Blog"));
  const withJwks = (jwks: () => Response) =>
    codeOf(checkDeployedDocuments(
      ORIGIN,
      "Blog",
      key,
      site({
        "/oauth/client-metadata.json": meta,
        "/oauth/jwks.json": jwks,
      }),
    ));
  assert.equal(
    await codeOf(checkDeployedDocuments(ORIGIN, "Blog", key, site({}))),
    "client_documents_missing: https://blog.example/oauth/client-metadata.json is not deployed (HTTP 404)",
  );
  assert.equal(
    await withJwks(() => new Response("<html>", { status: 200 })),
    "client_documents_invalid: https://blog.example/oauth/jwks.json is not JSON",
  );
  assert.equal(
    await withJwks(() => Response.json(clientJwks(other))),
    "client_documents_stale: https://blog.example/oauth/jwks.json differs from what the secret " +
      "and config imply (keys)",
  );
  assert.match(
    await codeOf(
      checkDeployedDocuments(ORIGIN, "Renamed", key, site({ "/oauth/client-metadata.json": meta })),
    ),
    /client-metadata\.json differs .*\(client_name\)/,
  );
  const offline: typeof fetch = () => Promise.reject(new TypeError("connection refused"));
  assert.match(await codeOf(checkDeployedDocuments(ORIGIN, "Blog", key, offline)), /no answer/);
});
