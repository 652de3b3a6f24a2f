import assert from "node:assert/strict";
import {
  AWS_ENV_VARS,
  type AwsClientConfig,
  clientConfig,
  createAwsClientFactory,
} from "./client_factory.ts";

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

Deno.test("AWS_ENV_VARS names the endpoint variable of every service the CLI and its plugins reach", async () => {
  // main.ts reads only these under the task's narrow flags: a service missing here would
  // silently ignore its documented AWS_ENDPOINT_URL_<SERVICE> override.
  const services = new Set<string>();
  for (const dir of ["deploy", "analytics"]) {
    const root = new URL(`../../${dir}/`, import.meta.url);
    for await (const file of walkTs(root)) {
      const text = await Deno.readTextFile(file);
      for (const m of text.matchAll(/client\(\w+Client, "([A-Z0-9_]+)"/g)) services.add(m[1]!);
    }
  }
  assert.ok(services.size >= 10, [...services].join());
  for (const s of services) {
    assert.ok(AWS_ENV_VARS.includes(`AWS_ENDPOINT_URL_${s}`), `AWS_ENDPOINT_URL_${s}`);
  }
});

async function* walkTs(dir: URL): AsyncGenerator<URL> {
  for await (const e of Deno.readDir(dir)) {
    const url = new URL(e.isDirectory ? `${e.name}/` : e.name, dir);
    if (e.isDirectory) yield* walkTs(url);
    else if (e.name.endsWith(".ts") && !e.name.endsWith("_test.ts")) yield url;
  }
}
