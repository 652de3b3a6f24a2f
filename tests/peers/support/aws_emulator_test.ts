import assert from "node:assert/strict";
import { GetCallerIdentityCommand, STSClient } from "@aws-sdk/client-sts";
import { type AwsEmulatorName, startAwsEmulator } from "./aws_emulator.ts";

for (const name of ["ministack", "moto"] as AwsEmulatorName[]) {
  Deno.test(`${name}: starts on loopback, answers STS with its account, and stops`, async () => {
    const emu = await startAwsEmulator(name);
    try {
      assert.match(emu.endpoint, /^http:\/\/127\.0\.0\.1:\d+$/);
      const sts = new STSClient({
        endpoint: emu.endpoint,
        region: emu.region,
        credentials: { accessKeyId: "test", secretAccessKey: "test" },
      });
      const id = await sts.send(new GetCallerIdentityCommand({}));
      sts.destroy();
      assert.equal(id.Account, emu.accountId);
    } finally {
      await emu.stop();
    }
    await assert.rejects(fetch(emu.endpoint), "the port is closed after stop()");
  });
}
