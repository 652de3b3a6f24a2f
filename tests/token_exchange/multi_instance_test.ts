/**
 * Three token-exchange processes on one PostgreSQL behave as one service: sessions, nonces,
 * revocations, user status, the operator lockout and the key ring are shared, and the service
 * rides out a `kill -9` of one instance and a PostgreSQL restart under load.
 *
 * This file always starts its own PostgreSQL (it stops and restarts it).
 */
import assert from "node:assert/strict";
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from "jose";
import postgres from "postgres";
import { MIGRATIONS } from "../../server/store/pg_migrations.ts";
import { startOidcProvider } from "../support/oidc.ts";
import { startTestPostgres } from "../support/postgres.ts";
import { waitFor } from "../support/wait.ts";
import { refreshLoad } from "../support/refresh_load.ts";
import { SECRET } from "../support/internal_api.ts";
import {
  providerToml,
  runTokenCli,
  type SpawnedServer,
  spawnTokenServer,
} from "../support/token_server.ts";

/** Every migration this release knows, in order: a fresh database gets all of them. */
const KNOWN_VERSIONS = MIGRATIONS.map((m) => m.version);

const GENERIC_500 = "The server could not complete the request";

function form(url: string, params: Record<string, string>): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(params),
  });
}

async function tokens(res: Promise<Response>): Promise<Record<string, string>> {
  const r = await res;
  const body = await r.json();
  assert.equal(r.status, 200, JSON.stringify(body));
  return body;
}

function codeExchange(te: SpawnedServer): Promise<Record<string, string>> {
  return tokens(form(`${te.url}/token`, {
    grant_type: "authorization_code",
    code: "c",
    provider: "idp",
    redirect_uri: "https://app.example/cb",
  }));
}

function refresh(te: SpawnedServer, token: string): Promise<Response> {
  return form(`${te.url}/token`, { grant_type: "refresh_token", refresh_token: token });
}

function admin(
  te: SpawnedServer,
  method: string,
  path: string,
  secret = SECRET,
  body?: unknown,
): Promise<Response> {
  return fetch(`${te.internalUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${secret}`,
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

/** `count` sessions signed in across `servers`: their refresh tokens. */
async function sessions(servers: readonly SpawnedServer[], count: number): Promise<string[]> {
  const made = await Promise.all(
    Array.from({ length: count }, (_, i) => codeExchange(servers[i % servers.length]!)),
  );
  return made.map((t) => t.refresh_token!);
}

async function drain(res: Promise<Response>): Promise<number> {
  const r = await res;
  await r.body?.cancel();
  return r.status;
}

Deno.test({
  name: "three instances on one PostgreSQL behave as one service, under load and faults",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await using pg = await startTestPostgres({ own: true });
    await using idp = await startOidcProvider();
    const url = await pg.schema("multi");
    const toml = `[server]\nport = 0\nissuer = "https://auth.example"\n` +
      `[storage]\nurl = "\${TE_DATABASE_URL}"\npool_size = 8\n` +
      `[grants]\nid_token = true\n` +
      // The load below comes from one address; the public limit is not under test here.
      `[rate_limit]\nenabled = false\n` +
      `[internal_api]\nenabled = true\nport = 0\nauth_methods = ["shared_secret"]\n` +
      `shared_secret = "${SECRET}"\n[internal_api.lockout]\nthreshold = 3\nwindow = "5m"\n` +
      providerToml("idp", idp.issuer);
    const env = { TE_DATABASE_URL: url };
    const dirs: string[] = [];
    const spawn = async () => {
      const dir = await Deno.makeTempDir({ prefix: "te-multi-" });
      dirs.push(dir);
      return await spawnTokenServer({ dir, toml, env });
    };
    // Started at once: they meet at the migration lock, and one migrates.
    const servers = await Promise.all([spawn(), spawn(), spawn()]);
    const [a, b, c] = servers as [SpawnedServer, SpawnedServer, SpawnedServer];
    try {
      await t.step(
        "instances started at once migrated once; serve --migrate-only migrates and exits",
        async () => {
          const sql = postgres(url, { max: 1, onnotice: () => {} });
          try {
            const applied = await sql<{ version: number }[]>`
            select version from schema_migrations order by version`;
            assert.deepEqual(applied.map((r) => r.version), KNOWN_VERSIONS);
          } finally {
            await sql.end();
          }
          const fresh = { TE_DATABASE_URL: await pg.schema("migrate_only") };
          const first = await runTokenCli(dirs[0]!, ["serve", "--migrate-only"], fresh);
          assert.equal(first.code, 0, first.stderr);
          assert.match(
            first.stdout,
            new RegExp(`applied migrations ${KNOWN_VERSIONS.join(", ")}$`, "m"),
          );
          assert.doesNotMatch(first.stdout, /listening/);
          const again = await runTokenCli(dirs[0]!, ["serve", "--migrate-only"], fresh);
          assert.match(again.stdout, /schema is current$/m);
          // The password never shows in what the command prints.
          assert.equal(`${first.stdout}${again.stdout}`.includes(new URL(url).password), false);
          // Built-in defaults (a KV store): nothing to migrate, said in one line.
          const empty = await Deno.makeTempDir({ prefix: "te-multi-" });
          dirs.push(empty);
          const kv = await runTokenCli(empty, ["serve", "--migrate-only"]);
          assert.equal(kv.code, 1);
          assert.match(kv.stderr, /^token-exchange: --migrate-only applies to a PostgreSQL store/);
        },
      );

      await t.step("a token issued by one instance refreshes on another", async () => {
        const first = await codeExchange(a);
        const second = await tokens(refresh(b, first.refresh_token!));
        const third = await tokens(refresh(c, second.refresh_token!));
        assert.notEqual(third.refresh_token, second.refresh_token);
      });

      await t.step(
        "50 parallel refreshes of one token over three instances: one successor, no 5xx",
        async () => {
          const { refresh_token } = await codeExchange(a);
          const answers = await Promise.all(
            Array.from({ length: 50 }, async (_, i) => {
              const res = await refresh(servers[i % 3]!, refresh_token!);
              return { status: res.status, body: await res.json() };
            }),
          );
          assert.deepEqual(answers.filter((x) => x.status !== 200), []);
          const successors = new Set(answers.map((x) => x.body.refresh_token));
          assert.equal(successors.size, 1);
          const [successor] = successors;
          await tokens(refresh(c, successor!));
        },
      );

      await t.step("revoked on one → refused on another at once", async () => {
        const { refresh_token } = await codeExchange(a);
        assert.equal(await drain(form(`${a.url}/revoke`, { token: refresh_token! })), 200);
        const res = await refresh(b, refresh_token!);
        assert.equal(res.status, 400);
        assert.equal((await res.json()).error, "invalid_grant");
      });

      await t.step(
        "a user suspended through one instance's internal API is refused on another",
        async () => {
          const { refresh_token, access_token } = await codeExchange(a);
          const sub = decodeJwt(access_token!).sub!;
          assert.equal(
            await drain(
              admin(b, "PATCH", `/internal/users/${sub}`, SECRET, { status: "suspended" }),
            ),
            200,
          );
          const res = await refresh(c, refresh_token!);
          assert.equal(res.status, 403);
          assert.equal((await res.json()).error, "access_denied");
          await drain(admin(b, "PATCH", `/internal/users/${sub}`, SECRET, { status: "active" }));
        },
      );

      await t.step("a nonce minted on one is accepted once on another, never twice", async () => {
        const { nonce } = await (await form(`${a.url}/nonce`, {})).json();
        const idToken = (jti: string) =>
          idp.server.issuer.buildToken({
            scopesOrTransform: (_h, p) => {
              const now = Math.floor(Date.now() / 1000);
              Object.assign(p, {
                iat: now,
                exp: now + 300,
                aud: "te-client",
                sub: "nonce-user",
                email: "n@example.com",
                nonce,
                jti,
              });
            },
          });
        const redeem = async (te: SpawnedServer, jti: string) => (await form(`${te.url}/token`, {
          grant_type: "id_token",
          provider: "idp",
          id_token: await idToken(jti),
        }));
        const statuses = await Promise.all(
          [b, c, a, b, c].map((te, i) => drain(redeem(te, `jti-${i}`))),
        );
        assert.deepEqual(statuses.sort(), [200, 400, 400, 400, 400]);
      });

      await t.step(
        "an operator locked out on one is locked out on all; 50 parallel guesses evaluate at most 3",
        async () => {
          const statuses = await Promise.all(
            Array.from(
              { length: 50 },
              (_, i) => drain(admin(servers[i % 3]!, "GET", "/internal/stats", "w".repeat(32))),
            ),
          );
          assert.equal(statuses.filter((s) => s === 401).length, 3);
          assert.equal(statuses.filter((s) => s === 429).length, 47);
          for (const te of servers) {
            assert.equal(await drain(admin(te, "GET", "/internal/stats")), 429);
          }
        },
      );

      await t.step(
        "key rotation reaches every instance: they sign with the new key and /keys agrees",
        async () => {
          const before = decodeProtectedHeader((await codeExchange(a)).access_token!).kid;
          const rotated = await runTokenCli(dirs[0]!, ["keys", "rotate"], env);
          assert.equal(rotated.code, 0, rotated.stderr);
          const kid = rotated.stdout.match(/signing key is now (\S+?);/)?.[1];
          assert.ok(kid && kid !== before);
          for (const te of servers) {
            const token = await waitFor(
              async () => {
                const token = (await codeExchange(te)).access_token!;
                return decodeProtectedHeader(token).kid === kid && token;
              },
              `${te.url} signing with the rotated key`,
              250,
            );
            // Verifies against every instance's /keys.
            for (const other of servers) {
              await jwtVerify(token, createRemoteJWKSet(new URL(`${other.url}/keys`)));
            }
          }
          const sets = await Promise.all(
            servers.map(async (te) => JSON.stringify(await (await fetch(`${te.url}/keys`)).json())),
          );
          assert.equal(new Set(sets).size, 1);
        },
      );

      await t.step("no refresh token or nonce is stored in plaintext", async () => {
        const first = await codeExchange(a);
        const second = await tokens(refresh(b, first.refresh_token!));
        const { nonce } = await (await form(`${c.url}/nonce`, {})).json();
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        try {
          const tables = await sql<{ name: string }[]>`
            select table_name as name from information_schema.tables
            where table_schema = current_schema()`;
          assert.ok(tables.length >= 8);
          let dump = "";
          for (const { name } of tables) {
            const rows = await sql.unsafe(`select t::text as row from ${name} t`);
            dump += rows.map((r) => r.row).join("\n");
          }
          assert.ok(dump.includes(decodeJwt(first.access_token!).sub!), "the dump has the data");
          for (const secret of [first.refresh_token!, second.refresh_token!, nonce, SECRET]) {
            assert.equal(dump.includes(secret), false);
          }
        } finally {
          await sql.end();
        }
      });

      await t.step(
        "kill -9 of one instance under refresh load: the others keep answering, no answered session is lost",
        async () => {
          const load = refreshLoad(servers, await sessions(servers, 12));
          await load.until((r) => r.ok >= 25, "refreshes before the kill");
          await c.stop("SIGKILL");
          const before = load.result.ok;
          // The survivors keep answering (a slow machine only makes this take longer).
          await load.until((r) => r.ok >= before + 25, "refreshes after the kill");
          const result = await load.stop();
          assert.deepEqual(result.serverErrors, []);
          // Every chain's last answered token still refreshes on a surviving instance.
          for (const token of result.last) await tokens(refresh(a, token));
        },
      );

      await t.step(
        "PostgreSQL restarted under load: clean 500 server_error while down, then recovery without restart",
        async () => {
          const alive = [a, b];
          const load = refreshLoad(alive, await sessions(alive, 8));
          await load.until((r) => r.ok >= 10, "refreshes before the stop");
          await pg.stop();
          await load.until((r) => r.serverErrors.length > 0, "a request failing while it is down");
          await pg.start();
          await load.until((r) => r.okAfterErrors > 0, "a request answered after it came back");
          const result = await load.stop();
          for (const e of result.serverErrors) {
            assert.deepEqual(e, {
              status: 500,
              body: { error: "server_error", error_description: GENERIC_500 },
            });
          }
          // Nothing answered is lost. A pooled connection that sat idle through the restart can
          // still fail its first query after the database is back (the client learns of the
          // closed socket only then): that answer must be the same clean 500, and a client's
          // retry must succeed.
          for (const token of result.last) {
            await waitFor(async () => {
              const r = await refresh(b, token);
              const body = await r.json();
              if (r.status < 500) {
                assert.equal(r.status, 200, JSON.stringify(body));
                return true;
              }
              assert.deepEqual({ status: r.status, body }, {
                status: 500,
                body: { error: "server_error", error_description: GENERIC_500 },
              });
              return false;
            }, "the refresh to succeed once the database is back");
          }
          assert.equal(await drain(fetch(`${a.url}/health`)), 200);
        },
      );
    } finally {
      await Promise.all(servers.map((s) => s.stop("SIGTERM")));
      for (const dir of dirs) await Deno.remove(dir, { recursive: true });
    }
  },
});
