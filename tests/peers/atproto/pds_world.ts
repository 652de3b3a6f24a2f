/**
 * The reference PDS world for tests/peers/atproto, run inside the private namespaces
 * `pds_test.ts` makes: `@atproto/pds` and `@did-plc/server` (a Node subprocess, plain HTTP on
 * loopback), and one TLS front on 127.0.0.1:443 with a test-CA certificate that serves, by host
 * name (the namespace's `/etc/hosts` maps them to 127.0.0.1):
 *
 * - `pds.test` and `*.pds.test`: the PDS (its authorization server, XRPC and handles),
 * - `plc.directory`: the PLC directory (the CLI's built-in one, so this name is mapped too),
 * - {@linkcode SITE_HOST}: the deployed site (its OAuth client documents), from the test's handler.
 *
 * @module
 */
import { join } from "node:path";
import { REPO_ROOT } from "../../support/token_server.ts";
import { createTestCa, type TestCa } from "../../support/test_ca.ts";
import { PEERS_CACHE } from "../support/python_env.ts";

/** The PDS's host name (its issuer is `https://pds.test`; handles end in `.pds.test`). */
export const PDS_HOST = "pds.test";
/** The PLC directory's host name: the public directory's, which the CLI always asks. */
export const PLC_HOST = "plc.directory";
/**
 * The site's host name: the PDS refuses a `client_id` under a reserved TLD (`.test`,
 * `.example`, …), so the site has a public-looking name, mapped to loopback in the namespace.
 */
export const SITE_HOST = "blog.peer-site.net";

/** The running world. */
export interface PdsWorld extends AsyncDisposable {
  readonly ca: TestCa;
  /** `https://pds.test` */
  readonly pdsUrl: string;
  /** `https://plc.directory` */
  readonly plcUrl: string;
  /** `https://blog.peer-site.net` */
  readonly siteOrigin: string;
  /** What the PDS process wrote on stderr (for failures). */
  readonly pdsLog: () => string;
}

/**
 * Starts the PDS process, waits for its ports, and serves the TLS front.
 *
 * @param site answers the requests for {@linkcode SITE_HOST}
 */
export async function startPdsWorld(
  site: (req: Request) => Response | Promise<Response>,
): Promise<PdsWorld> {
  const ca = await createTestCa([PDS_HOST, `*.${PDS_HOST}`, PLC_HOST, SITE_HOST]);
  const data = await Deno.makeTempDir({ prefix: "pds-peer-" });
  const hex = (n: number) =>
    Array.from(crypto.getRandomValues(new Uint8Array(n)), (b) => b.toString(16).padStart(2, "0"))
      .join("");
  const child = new Deno.Command("node", {
    args: [join(REPO_ROOT, "tests", "peers", "atproto", "pds_peer.mjs")],
    env: {
      PDS_MODULES: join(PEERS_CACHE, "atproto-pds"),
      PLC_MODULES: join(PEERS_CACHE, "plc"),
      NODE_EXTRA_CA_CERTS: ca.caFile,
      PDS_HOSTNAME: PDS_HOST,
      PDS_SERVICE_HANDLE_DOMAINS: `.${PDS_HOST}`,
      PDS_DATA_DIRECTORY: data,
      PDS_BLOBSTORE_DISK_LOCATION: join(data, "blobs"),
      PDS_JWT_SECRET: hex(32),
      PDS_ADMIN_PASSWORD: hex(16),
      PDS_PLC_ROTATION_KEY_K256_PRIVATE_KEY_HEX: hex(32),
      PDS_INVITE_REQUIRED: "false",
      // Its SSRF guard refuses loopback addresses, and every peer here is on loopback.
      PDS_DISABLE_SSRF_PROTECTION: "true",
      LOG_ENABLED: "false",
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr: string[] = [];
  const stderrDone = child.stderr.pipeThrough(new TextDecoderStream()).pipeTo(
    new WritableStream({ write: (c) => void stderr.push(c) }),
  );
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let first = "";
  while (!first.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) {
      await stderrDone;
      throw new Error(`the PDS process exited before listening:\n${stderr.join("")}`);
    }
    first += value;
  }
  const ports: { pds: number; plc: number } = JSON.parse(first.split("\n")[0]!);
  const upstream = (host: string) =>
    host === PLC_HOST
      ? `http://127.0.0.1:${ports.plc}`
      : host === PDS_HOST || host.endsWith(`.${PDS_HOST}`)
      ? `http://127.0.0.1:${ports.pds}`
      : undefined;
  const front = Deno.serve({
    hostname: "127.0.0.1",
    port: 443,
    cert: ca.certPem,
    key: ca.keyPem,
    onListen() {},
  }, async (req) => {
    const url = new URL(req.url);
    const host = url.hostname;
    if (host === SITE_HOST) return await site(req);
    const target = upstream(host);
    if (target === undefined) return new Response("unknown host", { status: 421 });
    // A reverse proxy: the upstream sees the public host and scheme, as behind a real one.
    const headers = new Headers(req.headers);
    headers.set("host", host);
    headers.set("x-forwarded-proto", "https");
    headers.set("x-forwarded-host", host);
    const res = await fetch(target + url.pathname + url.search, {
      method: req.method,
      headers,
      body: req.body,
      redirect: "manual",
    });
    // fetch decoded the body already: its encoding and length no longer describe it.
    const out = new Headers(res.headers);
    out.delete("content-encoding");
    out.delete("content-length");
    return new Response(res.body, { status: res.status, headers: out });
  });
  return {
    ca,
    pdsUrl: `https://${PDS_HOST}`,
    plcUrl: `https://${PLC_HOST}`,
    siteOrigin: `https://${SITE_HOST}`,
    pdsLog: () => stderr.join(""),
    async [Symbol.asyncDispose]() {
      await front.shutdown();
      try {
        child.kill("SIGTERM");
      } catch {
        // already gone
      }
      await reader.cancel();
      await child.status;
      await stderrDone;
      await ca[Symbol.asyncDispose]();
      await Deno.remove(data, { recursive: true });
    },
  };
}
