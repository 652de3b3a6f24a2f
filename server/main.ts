// deno-lint-ignore-file no-console -- a CLI entry point is where the console belongs
/**
 * The token-exchange command line: `serve` (also what runs without a command), `keys generate`,
 * `keys rotate`, `keys reseal`, `operator-token`, `users import`, `users export`.
 *
 * This is the only file of the member that reads the environment and prints; `serve.ts` opens
 * the store and the listeners for it (and for tests, in-process).
 *
 * @module
 */
import { parseArgs } from "node:util";
import {
  ConfigError,
  createJsonLogger,
  cryptoRandom,
  epochSeconds,
  formatDuration,
  parseDuration,
  systemClock,
} from "@org/shared";
import { loadConfig } from "./config/load.ts";
import { exportUsers, importUsers } from "./admin/user_import.ts";
import { AuditTrail } from "./audit/audit_trail.ts";
import { createIdFactory } from "./store/ids.ts";
import { defaultIssuer } from "./config/resolve.ts";
import type { Config } from "./config/schema.ts";
import {
  exportPkcs8Pem,
  generateEd25519,
  importPkcs8Pem,
  type JwtSigner,
  jwtSigner,
  thumbprint,
} from "./keys/ed25519.ts";
import { mintOperatorToken } from "./auth/operator_token.ts";
import {
  openStoredKey,
  resealKeyRing,
  ROTATE_AFTER_SEALING,
  rotateStoreKey,
} from "./keys/key_manager.ts";
import { createKeySealer, type KeySealer, MIN_ENCRYPTION_KEY_BYTES } from "./keys/key_seal.ts";
import { currentInvocation } from "./invocation.ts";
import { keyManagerOptions } from "./service.ts";
import { connectPostgres, openStore, startServer } from "./serve.ts";
import {
  openTelemetryTracing,
  sdkTracingRequested,
  type Tracing,
  tracingRequested,
} from "./telemetry/tracing.ts";
import { samplerFromEnv } from "./telemetry/sampler.ts";
import { otlpProtocolFromEnv } from "./telemetry/otlp_protocol.ts";
import { migrate } from "./store/pg_migrations.ts";
import { redactUrl } from "./store/pg_connection.ts";
import type { KeyRing } from "./store/keys.ts";

/** One CLI subcommand. Adding a command is one entry in {@linkcode COMMANDS}. */
interface Command {
  readonly usage: string;
  readonly summary: string;
  /** Runs with the command's arguments; `self` is how the program was run (for hints). */
  run(args: string[], self: string): Promise<number>;
}

const COMMANDS: Readonly<Record<string, Command>> = {
  "serve": {
    usage: "serve [--config PATH] [--migrate-only]",
    summary: "start the service; --migrate-only: apply PostgreSQL migrations and exit",
    run: serveCommand,
  },
  "keys generate": {
    usage: "keys generate [--out PATH]",
    summary: "write a new Ed25519 PKCS#8 PEM private key (stdout without --out) and print its kid",
    run: keysGenerateCommand,
  },
  "keys rotate": {
    usage: "keys rotate [--config PATH]",
    summary: "make a new store key the signer; the old one stays in /keys until its tokens expire",
    run: keysRotateCommand,
  },
  "keys reseal": {
    usage: "keys reseal --new-secret-env VAR [--config PATH]",
    summary: "re-seal the store's private keys under the secret in $VAR (--plaintext: unsealed); " +
      "keys.encryption_key must hold the current one",
    run: keysResealCommand,
  },
  "operator-token": {
    usage: "operator-token --sub NAME [--ttl 1h] [--config PATH]",
    summary: "print an operator JWT for the internal API, signed with the service's key",
    run: operatorTokenCommand,
  },
  "users import": {
    usage: "users import FILE [--json] [--config PATH]",
    summary: "import users with their ids from NDJSON (docs/http-api.md); a re-run changes nothing",
    run: usersImportCommand,
  },
  "users export": {
    usage: "users export [--out FILE] [--config PATH]",
    summary: "write every user as NDJSON in the import format (stdout by default)",
    run: usersExportCommand,
  },
};

/** Where the configuration reference lives (in the repository, beside the README). */
const CONFIG_DOCS = "docs/configuration.md";

/**
 * The smallest config with which someone can sign in: one provider. Shown by `--help` and,
 * on a start without any provider, in the first-run hint.
 */
const MINIMAL_CONFIG = `[providers.google]
issuer = "https://accounts.google.com"
client_id = "1234.apps.googleusercontent.com"
client_secret = "\${GOOGLE_CLIENT_SECRET}"   # read from the environment`;

/** The `--help` text, naming the program as it was run (`self`, from {@linkcode currentInvocation}). */
const usage = (self: string) =>
  `Usage: ${self} [command] [options]

Commands (none: serve):
${Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(54)} ${c.summary}`).join("\n")}

Options:
  --config PATH   config file (default: ./token-exchange.toml when present, else built-in defaults)
  -h, --help      show this help

Environment: TOKEN_EXCHANGE__SECTION__KEY overrides a config key; \${VAR} in the file reads VAR.

A minimal working config (./token-exchange.toml), then \`GOOGLE_CLIENT_SECRET=… ${self}\`:

${indent(MINIMAL_CONFIG)}

Every key: ${CONFIG_DOCS}.`;

/** Sections `operator-token` does not read: it needs no provider's or webhook's secret set. */
const NOT_FOR_MINTING = ["providers", "webhooks"];

/**
 * Runs the CLI with `args`; returns the process exit code.
 *
 * @param args command-line arguments without the program name
 * @returns 0 on success, 1 on a usage, config or startup error
 */
export async function main(args: string[]): Promise<number> {
  const self = currentInvocation(import.meta.url);
  if (args[0] === "--help" || args[0] === "-h") {
    console.log(usage(self));
    return 0;
  }
  // No command (or only options) serves: `deno run -A jsr:@org/token-exchange` is the way the
  // package is meant to be started.
  if (args.length === 0 || args[0]!.startsWith("-")) args = ["serve", ...args];
  const two = `${args[0]} ${args[1] ?? ""}`;
  const [name, rest] = COMMANDS[two] ? [two, args.slice(2)] : [args[0]!, args.slice(1)];
  const command = COMMANDS[name];
  if (!command) {
    // A group named alone (`keys`, `users`) says which subcommands it has.
    const group = Object.keys(COMMANDS).filter((c) => c.startsWith(`${args[0]} `));
    const why = group.length === 0
      ? `unknown command "${args.join(" ")}"`
      : args[1] === undefined || args[1].startsWith("-")
      ? `"${args[0]}" needs a subcommand: ${group.join(", ")}`
      : `unknown command "${args[0]} ${args[1]}"; "${args[0]}" has ${group.join(", ")}`;
    console.error(`token-exchange: ${why}\n\n${usage(self)}`);
    return 1;
  }
  if (rest.includes("--help") || rest.includes("-h")) {
    console.log(`Usage: ${self} ${command.usage}\n\n${command.summary}`);
    return 0;
  }
  try {
    return await command.run(rest, self);
  } catch (err) {
    if (err instanceof ConfigError) console.error(err.message);
    else console.error(`token-exchange: ${(err as Error).message}`);
    return 1;
  }
}

function configFlag(
  args: string[],
): { config: string | undefined; rest: string[]; migrateOnly: boolean } {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: "string" },
      out: { type: "string" },
      "migrate-only": { type: "boolean" },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new Error(`unexpected argument "${positionals[0]}"`);
  return {
    config: values.config,
    rest: values.out === undefined ? [] : [values.out],
    migrateOnly: values["migrate-only"] === true,
  };
}

/**
 * The config of a command. Which file was read is said on stderr except for `serve`: the other
 * commands' stdout is their result (a PEM, a token) that scripts capture.
 */
async function loadFromCli(
  path: string | undefined,
  say: (line: string) => void = console.error,
  skipSections: readonly string[] = [],
): Promise<Config> {
  const { config, file } = await loadConfig(path, Deno.env.toObject(), {
    readText: async (p) => {
      try {
        return await Deno.readTextFile(p);
      } catch (err) {
        if (err instanceof Deno.errors.NotFound) return undefined;
        throw err;
      }
    },
  }, { skipSections });
  say(file ? `token-exchange: config ${file}` : "token-exchange: built-in defaults");
  return config;
}

async function serveCommand(args: string[], self: string): Promise<number> {
  const flags = configFlag(args);
  const config = await loadFromCli(flags.config, console.log);
  if (flags.migrateOnly) return await migrateOnly(config);
  const tracing = await tracingFromEnv();
  const server = await startServer({ config, cli: self, ...(tracing && { tracing }) });
  if (server.publicUrl) console.log(`token-exchange: listening on ${server.publicUrl} (public)`);
  if (server.internalUrl) {
    console.log(`token-exchange: listening on ${server.internalUrl} (internal)`);
  }
  if (tracing) {
    console.log(`token-exchange: tracing on (OpenTelemetry, OTLP over HTTP; ${tracing.mode})`);
  }
  console.log(`token-exchange: issuer ${server.issuer}`);
  const hint = firstRunHint(config, self);
  if (hint) console.log(hint);
  const { promise, resolve } = Promise.withResolvers<string>();
  const signals: Deno.Signal[] = ["SIGINT", "SIGTERM"];
  const listeners = signals.map((s) => [s, () => resolve(s)] as const);
  for (const [s, l] of listeners) Deno.addSignalListener(s, l);
  const signal = await promise;
  for (const [s, l] of listeners) Deno.removeSignalListener(s, l);
  console.log(`token-exchange: ${signal}, finishing in-flight requests`);
  await server.shutdown();
  // The spans of the last requests go out before the process ends (bounded by the export timeout).
  await tracing?.shutdown?.();
  console.log("token-exchange: stopped");
  return 0;
}

/**
 * The tracing the environment asks for: the OpenTelemetry SDK with head sampling
 * (`OTEL_TRACES_EXPORTER=otlp`, sampled per `OTEL_TRACES_SAMPLER`), or Deno's built-in
 * OpenTelemetry (`OTEL_DENO=true`: every request recorded, the sampler variables ignored by
 * Deno), or none.
 */
async function tracingFromEnv(): Promise<
  (Tracing & { mode: string; shutdown?: () => Promise<void> }) | undefined
> {
  const env = (name: string) => Deno.env.get(name);
  if (tracingRequested(env("OTEL_DENO"))) {
    if (env("OTEL_TRACES_SAMPLER") !== undefined) {
      console.error(
        "token-exchange: OTEL_TRACES_SAMPLER is ignored under OTEL_DENO=true (Deno records every " +
          "request); for sampling, unset OTEL_DENO and set OTEL_TRACES_EXPORTER=otlp",
      );
    }
    return { ...openTelemetryTracing(), mode: "Deno's built-in, every request" };
  }
  if (!sdkTracingRequested(env("OTEL_TRACES_EXPORTER"))) return undefined;
  const { config: sampler, warning } = samplerFromEnv(
    env("OTEL_TRACES_SAMPLER"),
    env("OTEL_TRACES_SAMPLER_ARG"),
  );
  if (warning) console.error(`token-exchange: ${warning}`);
  const otlp = otlpProtocolFromEnv(
    env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
    env("OTEL_EXPORTER_OTLP_PROTOCOL"),
  );
  if (otlp.warning) console.error(`token-exchange: ${otlp.warning}`);
  // Loaded only when asked for: a service without tracing never fetches the SDK's packages.
  const { sdkTracing } = await import("./telemetry/sdk_tracing.ts");
  const tracing = sdkTracing({
    sampler,
    serviceName: env("OTEL_SERVICE_NAME") ?? "token-exchange",
    protocol: otlp.protocol,
  });
  return {
    ...tracing,
    mode: `${otlp.protocol}, sampler ${sampler.name}, ratio ${sampler.ratio}`,
  };
}

/** `serve --migrate-only`: the schema step of a deploy, run once before the instances. */
async function migrateOnly(config: Config): Promise<number> {
  if (config.storage.url === undefined) {
    throw new Error(
      "--migrate-only applies to a PostgreSQL store (storage.url); a KV store has no schema",
    );
  }
  const sql = await connectPostgres(config.storage);
  try {
    const applied = await migrate(sql);
    console.log(
      `token-exchange: ${redactUrl(config.storage.url)}: ` +
        (applied.length === 0
          ? "schema is current"
          : `applied migration${applied.length > 1 ? "s" : ""} ${applied.join(", ")}`),
    );
    return 0;
  } catch (err) {
    throw new Error(
      `cannot migrate ${redactUrl(config.storage.url)}: ${(err as Error).message}`,
    );
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/**
 * How to add a provider, when none is configured: the service then runs but cannot sign
 * anyone in, which a newcomer would otherwise only find out from a failing request.
 */
function firstRunHint(config: Config, self: string): string | undefined {
  if (Object.keys(config.providers).length > 0) return undefined;
  return `token-exchange: no identity provider is configured, so nobody can sign in yet. ` +
    `Add one to ./token-exchange.toml (or --config PATH) and restart:\n\n${
      indent(MINIMAL_CONFIG)
    }\n\nProviders and every other key: ${CONFIG_DOCS}#providers; ` +
    `\`${self} --help\` shows this again.`;
}

function indent(text: string): string {
  return text.split("\n").map((l) => `  ${l}`).join("\n");
}

async function keysGenerateCommand(args: string[]): Promise<number> {
  const { rest } = configFlag(args);
  const key = generateEd25519();
  const pem = exportPkcs8Pem(key);
  const kid = thumbprint(key.x);
  const out = rest[0];
  if (out === undefined) {
    console.log(pem.trimEnd());
    console.error(`kid: ${kid}`);
  } else {
    await Deno.writeTextFile(out, pem, { mode: 0o600, createNew: true });
    console.log(`token-exchange: wrote ${out} (kid ${kid})`);
  }
  return 0;
}

async function keysRotateCommand(args: string[]): Promise<number> {
  const config = await loadFromCli(configFlag(args).config);
  const opened = await openStore(config.storage, systemClock);
  try {
    const log = createJsonLogger({ level: "warn" });
    const options = await keyManagerOptions(config, {
      store: opened.store,
      clock: systemClock,
      log,
      readKeyFile: (p) => Deno.readTextFile(p),
    });
    const { kid, previous } = await rotateStoreKey(options);
    console.log(
      `token-exchange: signing key is now ${kid}` +
        (previous ? `; ${previous} stays published until its tokens expire` : ""),
    );
    return 0;
  } finally {
    await opened.close();
  }
}

async function keysResealCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: "string" },
      "new-secret-env": { type: "string" },
      plaintext: { type: "boolean", default: false },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new Error(`unexpected argument "${positionals[0]}"`);
  const variable = values["new-secret-env"];
  if ((variable === undefined) === !values.plaintext) {
    throw new Error(
      "keys reseal needs --new-secret-env VAR (the name of the variable holding the new " +
        "secret; never the secret itself, which would show in the process list) or --plaintext",
    );
  }
  let next: KeySealer | undefined;
  if (variable !== undefined) {
    const secret = Deno.env.get(variable);
    if (
      secret === undefined || new TextEncoder().encode(secret).length < MIN_ENCRYPTION_KEY_BYTES
    ) {
      throw new Error(
        `$${variable} must hold the new secret, at least ${MIN_ENCRYPTION_KEY_BYTES} bytes`,
      );
    }
    next = createKeySealer(secret);
  }
  const config = await loadFromCli(values.config);
  const opened = await openStore(config.storage, systemClock);
  try {
    const options = await keyManagerOptions(config, {
      store: opened.store,
      clock: systemClock,
      log: createJsonLogger({ level: "warn" }),
      readKeyFile: (p) => Deno.readTextFile(p),
    });
    const { resealed, fromPlaintext } = await resealKeyRing(options, next);
    console.log(
      `token-exchange: ${resealed} private key(s) ${
        next ? `sealed under $${variable}` : "stored unsealed"
      }; ` +
        (next
          ? `set keys.encryption_key to that secret before the next start`
          : "remove keys.encryption_key before the next start"),
    );
    if (fromPlaintext > 0) console.log(`token-exchange: ${ROTATE_AFTER_SEALING}`);
    return 0;
  } finally {
    await opened.close();
  }
}

/** Longest lifetime `operator-token --ttl` accepts. */
const MAX_OPERATOR_TTL = 30 * 86400;

async function operatorTokenCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      config: { type: "string" },
      sub: { type: "string" },
      ttl: { type: "string", default: "1h" },
    },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new Error(`unexpected argument "${positionals[0]}"`);
  const sub = values.sub?.trim();
  if (!sub) throw new Error("operator-token needs --sub NAME (the operator, shown in audit logs)");
  let ttl: number;
  try {
    ttl = parseDuration(values.ttl);
  } catch (err) {
    throw new Error(`--ttl: ${(err as Error).message}`);
  }
  if (ttl < 1 || ttl > MAX_OPERATOR_TTL) {
    throw new Error(`--ttl must be from 1s to ${formatDuration(MAX_OPERATOR_TTL)}`);
  }
  const config = await loadFromCli(values.config, console.error, NOT_FOR_MINTING);
  const sign = await activeSigner(config);
  const ia = config.internal_api;
  if (!ia.auth_methods.includes("operator_token")) {
    console.error(
      'token-exchange: note: internal_api.auth_methods does not list "operator_token"; ' +
        "the service will not accept this token until it does",
    );
  }
  const token = mintOperatorToken(
    sign,
    {
      issuer: config.server.issuer ?? defaultIssuer(config.server.host, config.server.port),
      audience: ia.operator_token.audience,
      requiredClaim: ia.operator_token.required_claim,
    },
    sub,
    ttl,
    epochSeconds(systemClock),
    cryptoRandom,
  );
  console.error(`token-exchange: operator token for ${sub}, valid ${formatDuration(ttl)}`);
  console.log(token);
  return 0;
}

/**
 * The signer of the active key, read without writing anything: the PEM file when configured,
 * else the store key.
 */
async function activeSigner(config: Config): Promise<JwtSigner> {
  if (config.keys.private_key_path !== undefined) {
    const key = importPkcs8Pem(await Deno.readTextFile(config.keys.private_key_path));
    return jwtSigner(key, config.keys.kid ?? thumbprint(key.x));
  }
  if (config.storage.url === undefined && config.storage.kv_path === ":memory:") {
    throw new Error(
      "an in-memory store has no signing key to mint with; use keys.private_key_path",
    );
  }
  const ring = await storedKeyRing(config);
  const active = ring?.keys.find((k) => k.kid === ring.active_kid);
  if (!active?.pkcs8) {
    throw new Error(
      `no signing key in the store at ${storeName(config)} yet; start the service once first`,
    );
  }
  const sealer = config.keys.encryption_key === undefined
    ? undefined
    : createKeySealer(config.keys.encryption_key);
  return jwtSigner(openStoredKey({ kid: active.kid, pkcs8: active.pkcs8 }, sealer), active.kid);
}

function storeName(config: Config): string {
  return config.storage.url === undefined ? config.storage.kv_path : redactUrl(config.storage.url);
}

/**
 * The store's key ring, read only: neither migrating PostgreSQL nor taking the KV file's lock,
 * so this also works while the server runs on a local file.
 */
async function storedKeyRing(config: Config): Promise<KeyRing | undefined> {
  const opened = await openStore(config.storage, systemClock, { readOnly: true });
  try {
    return (await opened.store.keyring.load()).ring;
  } catch (err) {
    throw new Error(`cannot read the key ring at ${storeName(config)}: ${(err as Error).message}`);
  } finally {
    await opened.close();
  }
}

if (import.meta.main) Deno.exit(await main(Deno.args));

async function usersImportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { config: { type: "string" }, json: { type: "boolean", default: false } },
    allowPositionals: true,
  });
  if (positionals.length !== 1) {
    throw new Error("users import needs one FILE (NDJSON, a user per line)");
  }
  const file = positionals[0]!;
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (err) {
    throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  const config = await loadFromCli(values.config);
  const opened = await openStore(config.storage, systemClock);
  try {
    const report = await importUsers(
      {
        clock: systemClock,
        audit: new AuditTrail(config.audit.retention, systemClock, cryptoRandom),
        store: opened.store,
      },
      createIdFactory(systemClock, cryptoRandom),
      text,
      // The audit trail names an import run from the command line this way.
      { type: "operator", id: "cli" },
    );
    if (values.json) console.log(JSON.stringify(report));
    else {
      for (const p of report.problems) console.error(`${file}:${p.line}: ${p.reason}`);
      console.log(
        report.written
          ? `token-exchange: ${report.created} users imported, ${report.unchanged} unchanged` +
            (report.problems.length > 0 ? `, ${report.problems.length} failed` : "")
          : `token-exchange: nothing imported: ${report.problems.length} line(s) to fix`,
      );
    }
    return report.written && report.problems.length === 0 ? 0 : 1;
  } finally {
    await opened.close();
  }
}

async function usersExportCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { config: { type: "string" }, out: { type: "string" } },
    allowPositionals: true,
  });
  if (positionals.length > 0) throw new Error(`unexpected argument "${positionals[0]}"`);
  const config = await loadFromCli(values.config);
  const opened = await openStore(config.storage, systemClock, { readOnly: true });
  const out = values.out === undefined
    ? Deno.stdout.writable
    : (await Deno.open(values.out, { write: true, create: true, truncate: true })).writable;
  const writer = out.getWriter();
  const encoder = new TextEncoder();
  let n = 0;
  try {
    for await (const line of exportUsers(opened.store.users)) {
      await writer.write(encoder.encode(line + "\n"));
      n++;
    }
  } finally {
    if (values.out === undefined) writer.releaseLock();
    else await writer.close();
    await opened.close();
  }
  console.error(`token-exchange: ${n} users exported`);
  return 0;
}
