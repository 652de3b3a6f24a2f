import assert from "node:assert/strict";
import { CreateCatalogCommand, GetCatalogCommand, GlueClient } from "@aws-sdk/client-glue";
import { testAwsConfig } from "../support/s3.ts";
import { startGlueFake } from "./glue.ts";

Deno.test("glue fake: federated catalog create, read, conflict, not found", async () => {
  await using fake = startGlueFake();
  const client = new GlueClient({ ...testAwsConfig, endpoint: fake.endpoint, maxAttempts: 1 });
  try {
    await assert.rejects(
      client.send(new GetCatalogCommand({ CatalogId: "s3tablescatalog" })),
      { name: "EntityNotFoundException" },
    );
    const create = new CreateCatalogCommand({
      Name: "s3tablescatalog",
      CatalogInput: {
        FederatedCatalog: {
          Identifier: "arn:aws:s3tables:us-east-1:123456789012:bucket/*",
          ConnectionName: "aws:s3tables",
        },
      },
    });
    await client.send(create);
    await assert.rejects(client.send(create), { name: "AlreadyExistsException" });
    const got = await client.send(new GetCatalogCommand({ CatalogId: "s3tablescatalog" }));
    assert.equal(got.Catalog?.Name, "s3tablescatalog");
    assert.equal(got.Catalog?.FederatedCatalog?.ConnectionName, "aws:s3tables");
  } finally {
    client.destroy();
  }
});
