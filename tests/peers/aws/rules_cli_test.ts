/**
 * Redirect and header rules through the real CLI against each AWS emulator: bootstrap (the rules
 * store), a deploy whose `_redirects` outgrows the function's 10 KB (the table in the store),
 * an identical redeploy, destroy; each step judged by the emulator's own answers (the function's
 * LIVE code, the store's keys, the distribution's configuration). On moto, whose CloudFront is
 * routed to our fakes (peer_world.ts says why), the judge is our fake.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import {
  CloudFrontClient,
  DescribeKeyValueStoreCommand,
  GetDistributionConfigCommand,
  GetFunctionCommand,
  ListDistributionsCommand,
} from "@aws-sdk/client-cloudfront";
import { paginateListKeys } from "@aws-sdk/client-cloudfront-keyvaluestore";
import { KeyValueStoreClient } from "../../../deploy/routing/rules_store_client.ts";
import { EMULATORS, ok, SITE, startPeerWorld } from "./peer_world.ts";

const RULES = Array.from({ length: 300 }, (_, i) => `/old/page-${i} /new/page-${i} 301`);

for (const name of EMULATORS) {
  Deno.test(`${name}: rules past 10 KB go to the rules store before the sync; an identical redeploy changes nothing; destroy removes the store`, async (t) => {
    await using world = await startPeerWorld(name, "rules");
    await world.configure({
      ...SITE,
      redirects: [{ from: "/blog/*", to: "/posts/:splat", status: 302 }],
      headers: [
        { for: "/*", values: { "X-Robots-Tag": "noindex" } },
        { for: "/assets/*", values: { "Cache-Control": "public, max-age=31536000, immutable" } },
      ],
    });
    await Deno.writeTextFile(join(world.root, "src", "_redirects"), RULES.join("\n") + "\n");
    const cf = world.client(CloudFrontClient, "CLOUDFRONT");
    const kvs = world.client(KeyValueStoreClient, "CLOUDFRONT_KEYVALUESTORE");
    let storeArn = "";
    let entries = 0;
    try {
      await world.steps(t, [
        ["bootstrap creates the rules store", async () => {
          ok(await world.run(["bootstrap"]), "bootstrap");
          const store = await cf.send(
            new DescribeKeyValueStoreCommand({ Name: "production-blog-rules" }),
          );
          storeArn = store.KeyValueStore!.ARN!;
          assert.ok(storeArn.includes(":key-value-store/"), storeArn);
        }],
        ["deploy puts the table in the store and the store-reading function live", async () => {
          const r = await world.run(["deploy", "--builder", "local", "--json"]);
          ok(r, "deploy");
          const rules = JSON.parse(r.stdout).rules;
          assert.equal(rules.redirects, 301);
          assert.equal(rules.table, "store");
          entries = rules.storeEntries;
          let keys = 0;
          for await (const page of paginateListKeys({ client: kvs }, { KvsARN: storeArn })) {
            keys += page.Items?.length ?? 0;
          }
          assert.equal(keys, entries);
          const live = await cf.send(
            new GetFunctionCommand({ Name: "production-blog-rewrite", Stage: "LIVE" }),
          );
          const code = new TextDecoder().decode(live.FunctionCode);
          assert.ok(code.startsWith("import cf from 'cloudfront';"), code.slice(0, 80));
          const [dist] = (await cf.send(new ListDistributionsCommand({}))).DistributionList!
            .Items!;
          const config = (await cf.send(new GetDistributionConfigCommand({ Id: dist!.Id! })))
            .DistributionConfig!.DefaultCacheBehavior!;
          assert.ok(config.ResponseHeadersPolicyId, "the site-wide headers' policy");
          assert.ok(
            config.FunctionAssociations?.Items?.some((a) =>
              a.EventType === "viewer-response" &&
              a.FunctionARN?.endsWith("production-blog-headers")
            ),
            "the per-path headers' function",
          );
        }],
        ["an identical redeploy changes no rule", async () => {
          const r = await world.run(["deploy", "--builder", "local", "--json"]);
          ok(r, "redeploy");
          assert.deepEqual(JSON.parse(r.stdout).rules.changes, []);
        }],
        ["destroy removes the store, the functions and the policy", async () => {
          ok(await world.run(["destroy", "--yes"]), "destroy");
          await assert.rejects(() =>
            cf.send(new DescribeKeyValueStoreCommand({ Name: "production-blog-rules" }))
          );
        }],
      ]);
    } finally {
      cf.destroy();
      kvs.destroy();
    }
  });
}
