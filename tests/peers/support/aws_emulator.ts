/**
 * The AWS emulators of the peer suite, written by others: `ministack` and `moto_server`, each
 * started from the pinned virtualenv on a free 127.0.0.1 port, with the environment the deploy
 * CLI and the SDK clients need to reach it.
 *
 * @module
 */
import { join } from "node:path";
import { peerPythonEnv } from "./python_env.ts";
import { startPeerProcess } from "./peer_process.ts";

/** The emulators this suite runs. */
export type AwsEmulatorName = "ministack" | "moto";

/** A running emulator. */
export interface AwsEmulator extends AsyncDisposable {
  readonly name: AwsEmulatorName;
  /** `http://127.0.0.1:<port>`: every service on one endpoint. */
  readonly endpoint: string;
  /** The account id the emulator reports (STS `GetCallerIdentity`, ARNs). */
  readonly accountId: string;
  /** The region the peer tests use. */
  readonly region: string;
  /**
   * The environment a CLI run (or an SDK client) needs: `AWS_ENDPOINT_URL`, `AWS_REGION`,
   * fake credentials and `AWS_ACCOUNT_ID`.
   */
  readonly env: Readonly<Record<string, string>>;
  /** Stops the emulator and removes its temp dir (all of its state). */
  stop(): Promise<void>;
}

/** The region of every peer test. */
export const PEER_REGION = "us-east-1";

/** Each emulator's default account id. */
const ACCOUNTS: Record<AwsEmulatorName, string> = {
  ministack: "000000000000",
  moto: "123456789012",
};

/**
 * Starts `ministack` bound to 127.0.0.1 (it binds every interface unless `BIND_HOST` says
 * otherwise), with its optional listeners (IoT MQTT on 8883, SFTP) off and every state
 * folder inside its temp dir.
 */
export async function startMinistack(): Promise<AwsEmulator> {
  const py = await peerPythonEnv();
  const proc = await startPeerProcess({
    name: "ministack",
    cmd: py.bin("ministack"),
    args: () => [],
    env: (port, dir) => ({
      BIND_HOST: "127.0.0.1",
      GATEWAY_PORT: String(port),
      MINISTACK_REGION: PEER_REGION,
      MINISTACK_ACCOUNT_ID: ACCOUNTS.ministack,
      IOT_MTLS_ENABLED: "0",
      SFTP_ENABLED: "0",
      PERSIST_STATE: "0",
      S3_PERSIST: "0",
      S3_DATA_DIR: join(dir, "s3"),
      STATE_DIR: join(dir, "state"),
      LOG_LEVEL: "WARNING",
    }),
    readyPath: "/_ministack/ready",
  });
  return emulator("ministack", proc.endpoint, proc.stop);
}

/** Starts `moto_server` on 127.0.0.1 (its default host; given explicitly all the same). */
export async function startMoto(): Promise<AwsEmulator> {
  const py = await peerPythonEnv();
  const proc = await startPeerProcess({
    name: "moto",
    cmd: py.bin("moto_server"),
    args: (port) => ["-H", "127.0.0.1", "-p", String(port)],
    env: () => ({
      MOTO_ACCOUNT_ID: ACCOUNTS.moto,
      AWS_DEFAULT_REGION: PEER_REGION,
      // moto issues a DNS-validated certificate this many seconds after the request (60 by
      // default), whether or not the validation record exists.
      MOTO_ACM_VALIDATION_WAIT: "0",
    }),
    readyPath: "/moto-api/",
  });
  return emulator("moto", proc.endpoint, proc.stop);
}

/**
 * Starts the emulator `name`.
 *
 * @param name `ministack` or `moto`
 */
export function startAwsEmulator(name: AwsEmulatorName): Promise<AwsEmulator> {
  return name === "ministack" ? startMinistack() : startMoto();
}

function emulator(
  name: AwsEmulatorName,
  endpoint: string,
  stop: () => Promise<void>,
): AwsEmulator {
  const accountId = ACCOUNTS[name];
  return {
    name,
    endpoint,
    accountId,
    region: PEER_REGION,
    env: {
      AWS_ENDPOINT_URL: endpoint,
      AWS_REGION: PEER_REGION,
      AWS_ACCESS_KEY_ID: "test",
      AWS_SECRET_ACCESS_KEY: "test",
      AWS_ACCOUNT_ID: accountId,
    },
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
