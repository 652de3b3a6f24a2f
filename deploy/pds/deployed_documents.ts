/**
 * Before a login, the authorization server will fetch the site's client documents; `deploy pds
 * login` fetches them first and compares them with what the secret and config imply, so a
 * forgotten deploy or a stale key is named here instead of failing as an opaque
 * `invalid_client` on the authorization server.
 *
 * @module
 */
import { DeployError } from "../errors.ts";
import type { PrivateEcJwk } from "./client_key.ts";
import {
  CLIENT_PATHS,
  clientJwks,
  clientMetadata,
  compareDeployed,
  type DeployedDocumentProblem,
} from "./client_metadata.ts";

/**
 * Checks the deployed `client-metadata.json` and `jwks.json` against the expected documents.
 *
 * @param origin `https://<domain>`
 * @param name `pds.name`
 * @param key the client key from the secret
 * @param fetcher HTTP client
 * @throws {DeployError} client_documents_missing / client_documents_invalid /
 *   client_documents_stale, naming the URL and, when stale, the members that differ
 */
export async function checkDeployedDocuments(
  origin: string,
  name: string,
  key: PrivateEcJwk,
  fetcher: typeof fetch,
): Promise<void> {
  const expected: [string, object][] = [
    [origin + CLIENT_PATHS.metadata, clientMetadata(origin, name)],
    [origin + CLIENT_PATHS.jwks, clientJwks(key)],
  ];
  for (const [url, want] of expected) {
    const problem = await fetchProblem(url, want, fetcher);
    if (problem) throw documentError(problem);
  }
}

async function fetchProblem(
  url: string,
  expected: object,
  fetcher: typeof fetch,
): Promise<DeployedDocumentProblem | null> {
  let response: Response;
  try {
    response = await fetcher(url, { headers: { accept: "application/json" }, redirect: "error" });
  } catch {
    return { kind: "not_deployed", url, status: "network" };
  }
  if (!response.ok) {
    await response.body?.cancel();
    return { kind: "not_deployed", url, status: response.status };
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    return { kind: "not_json", url };
  }
  return compareDeployed(url, body, expected);
}

function documentError(problem: DeployedDocumentProblem): DeployError {
  const deploy = "commit the files `deploy pds keygen` wrote under paths.publicDir, run " +
    "`deploy` (production), then `deploy pds login` again";
  switch (problem.kind) {
    case "not_deployed":
      return new DeployError(
        "client_documents_missing",
        `${problem.url} is not deployed (${
          problem.status === "network" ? "no answer" : `HTTP ${problem.status}`
        })`,
        { hint: deploy },
      );
    case "not_json":
      return new DeployError("client_documents_invalid", `${problem.url} is not JSON`, {
        hint: "the site serves something else at that path (a 404 page?); " + deploy,
      });
    case "different":
      return new DeployError(
        "client_documents_stale",
        `${problem.url} differs from what the secret and config imply (${problem.keys.join(", ")})`,
        {
          hint: "the deployed file is from another key or config: " + deploy +
            " (or run `deploy pds keygen` again if the secret was replaced)",
        },
      );
  }
}
