import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { KEEP_NODE_MODULES } from "../../tests/support/deno_child.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  Deno.test({
    name: `dashboard server: ${signal} stops it and frees the port`,
    ignore: Deno.build.os === "windows",
    async fn() {
      // A process that serves like the command does and waits for the stop signal.
      const script = `
        import { nextStopSignal, serveDashboard } from ${
        JSON.stringify(new URL("./serve.ts", import.meta.url).href)
      };
        const server = serveDashboard(0, () => () => Promise.resolve(new Response("ok")));
        console.log(server.url);
        const got = await nextStopSignal();
        await server.shutdown();
        console.log("stopped on " + got);`;
      const file = await Deno.makeTempFile({ suffix: ".ts" });
      await Deno.writeTextFile(file, script);
      const child = new Deno.Command(Deno.execPath(), {
        args: [
          "run",
          KEEP_NODE_MODULES,
          "--no-check",
          `--config=${ROOT}deno.json`,
          "--allow-net=127.0.0.1",
          "--allow-env",
          "--allow-read",
          "--allow-sys",
          file,
        ],
        cwd: ROOT,
        stdout: "piped",
        stderr: "inherit",
      }).spawn();
      try {
        const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
        let text = "";
        while (!text.includes("\n")) {
          const { value, done } = await lines.read();
          if (done) break;
          text += value;
        }
        const url = text.trim();
        assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
        assert.equal(await (await fetch(url)).text(), "ok");
        child.kill(signal);
        let rest = "";
        for (;;) {
          const { value, done } = await lines.read();
          if (done) break;
          rest += value;
        }
        const status = await child.status;
        assert.equal(status.code, 0);
        assert.match(rest, new RegExp(`stopped on ${signal}`));
        const port = Number(new URL(url).port);
        Deno.listen({ hostname: "127.0.0.1", port }).close();
      } finally {
        await Deno.remove(file);
      }
    },
  });
}
