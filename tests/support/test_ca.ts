/**
 * A throwaway certificate authority and a `localhost` / `127.0.0.1` server certificate it
 * signed, made with the `openssl` command, so loopback peers serve real HTTPS and the code
 * under test verifies real certificates (it is given the CA, never told to skip checks).
 *
 * @module
 */

/** A test CA and a server certificate for loopback. */
export interface TestCa extends AsyncDisposable {
  /** The CA certificate (PEM): trust this. */
  readonly caPem: string;
  /** The server certificate (PEM) for `localhost` and `127.0.0.1`. */
  readonly certPem: string;
  /** The server key (PEM). */
  readonly keyPem: string;
  /** Path of the CA file (for `DENO_CERT` in a subprocess). */
  readonly caFile: string;
  /** `fetch` that trusts the CA (and nothing is disabled). */
  readonly fetch: typeof fetch;
  /**
   * {@linkcode TestCa.fetch} with a test "DNS": requests for a mapped host go to the loopback
   * origin it maps to (`{ "blog.example": "https://localhost:4321" }`), so code under test can
   * use a site's real `https://<domain>` URLs while the site is served on a free port.
   */
  fetchMapped(hosts: Readonly<Record<string, string>>): typeof fetch;
}

/**
 * Whether `openssl` can run here. Without it the suite prints one line naming the package and
 * its tests are skipped (CI images have it; so does every Debian with `openssl` installed).
 *
 * @param suite the suite's name, for the printed line
 * @returns true when the command exists
 */
export async function opensslAvailable(suite: string): Promise<boolean> {
  try {
    const out = await new Deno.Command("openssl", { args: ["version"], stdout: "null" }).output();
    if (out.success) return true;
  } catch {
    // not installed: fall through to the notice
  }
  // deno-lint-ignore no-console -- the one line a developer sees instead of a silent skip
  console.log(`${suite} skipped: install the Debian package \`openssl\` to run them`);
  return false;
}

/**
 * Makes the CA and the server certificate in a temporary directory.
 *
 * @param names more DNS names the server certificate is for (besides `localhost` and
 *   `127.0.0.1`; `*.` wildcards allowed), for peers reached under a host name
 * @returns the CA; `await using` removes the files and closes the HTTP client
 */
export async function createTestCa(names: readonly string[] = []): Promise<TestCa> {
  const dir = await Deno.makeTempDir({ prefix: "test-ca-" });
  // Arguments without spaces, so a plain split suffices; the subject is passed apart.
  const run = async (line: string, subject?: string) => {
    const args = [...line.split(" "), ...(subject ? ["-subj", subject] : [])];
    const out = await new Deno.Command("openssl", {
      args,
      cwd: dir,
      stdout: "null",
      stderr: "piped",
    })
      .output();
    if (!out.success) {
      throw new Error(`openssl ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
    }
  };
  await Deno.writeTextFile(
    `${dir}/leaf.ext`,
    "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\n" +
      "extendedKeyUsage=serverAuth\nsubjectAltName=" +
      ["DNS:localhost", "IP:127.0.0.1", ...names.map((n) => `DNS:${n}`)].join(",") + "\n",
  );
  const newKey = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes";
  await run(
    `req -x509 ${newKey} -keyout ca.key -out ca.pem -days 2 -addext ` +
      "basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign",
    "/CN=deploy test CA",
  );
  await run(`req ${newKey} -keyout leaf.key -out leaf.csr`, "/CN=localhost");
  await run(
    "x509 -req -in leaf.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out leaf.pem -days 2 " +
      "-extfile leaf.ext",
  );
  const caPem = await Deno.readTextFile(`${dir}/ca.pem`);
  const client = Deno.createHttpClient({ caCerts: [caPem] });
  const trusted: typeof fetch = (input, init) => fetch(input, { ...init, client });
  return {
    caPem,
    certPem: await Deno.readTextFile(`${dir}/leaf.pem`),
    keyPem: await Deno.readTextFile(`${dir}/leaf.key`),
    caFile: `${dir}/ca.pem`,
    fetch: trusted,
    fetchMapped: (hosts) => (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      const target = hosts[url.host];
      if (target === undefined) return trusted(input, init);
      const mapped = new URL(url.pathname + url.search, target);
      return trusted(input instanceof Request ? new Request(mapped, input) : mapped, init);
    },
    async [Symbol.asyncDispose]() {
      client.close();
      await Deno.remove(dir, { recursive: true });
    },
  };
}
