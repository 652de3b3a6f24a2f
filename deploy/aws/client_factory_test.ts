import assert from "node:assert/strict";
import { type AwsClientConfig, clientConfig, createAwsClientFactory } from "./client_factory.ts";

Deno.test("clientConfig() takes AWS_ENDPOINT_URL_<SERVICE> over AWS_ENDPOINT_URL, S3 path-style", () => {
  const environ = { AWS_ENDPOINT_URL: "http://all", AWS_ENDPOINT_URL_S3: "http://s3" };
  assert.deepEqual(clientConfig(environ, "S3", "eu-west-1"), {
    region: "eu-west-1",
    endpoint: "http://s3",
    forcePathStyle: true,
  });
  assert.deepEqual(clientConfig(environ, "ROUTE_53", "us-east-1"), {
    region: "us-east-1",
    endpoint: "http://all",
  });
  assert.deepEqual(clientConfig({}, "S3", "eu-west-1"), { region: "eu-west-1" });
});

Deno.test("clientConfig() ignores both endpoint variables under AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", () => {
  for (const value of ["true", "TRUE"]) {
    const environ = {
      AWS_ENDPOINT_URL: "http://all",
      AWS_ENDPOINT_URL_S3: "http://s3",
      AWS_IGNORE_CONFIGURED_ENDPOINT_URLS: value,
    };
    assert.deepEqual(clientConfig(environ, "S3", "eu-west-1"), { region: "eu-west-1" });
  }
});

Deno.test("clientConfig() uses static keys only when both are set, with the session token", () => {
  const keys = { AWS_ACCESS_KEY_ID: "AK", AWS_SECRET_ACCESS_KEY: "SK", AWS_SESSION_TOKEN: "ST" };
  assert.deepEqual(clientConfig(keys, "STS", "us-east-1").credentials, {
    accessKeyId: "AK",
    secretAccessKey: "SK",
    sessionToken: "ST",
  });
  assert.equal(
    clientConfig({ AWS_ACCESS_KEY_ID: "AK" }, "STS", "us-east-1").credentials,
    undefined,
  );
});

Deno.test("createAwsClientFactory() makes a client on first use, once per service and region", () => {
  const made: AwsClientConfig[] = [];
  let destroyed = 0;
  class Fake {
    constructor(config: AwsClientConfig) {
      made.push(config);
    }
    destroy() {
      destroyed++;
    }
  }
  const factory = createAwsClientFactory({ AWS_ENDPOINT_URL: "http://all" });
  assert.equal(made.length, 0, "nothing is built before it is used");
  const a = factory.client(Fake, "S3", "eu-west-1");
  assert.equal(factory.client(Fake, "S3", "eu-west-1"), a);
  assert.notEqual(factory.client(Fake, "S3", "us-east-1"), a);
  assert.deepEqual(made.map((c) => c.region), ["eu-west-1", "us-east-1"]);
  factory[Symbol.dispose]();
  assert.equal(destroyed, 2);
});
