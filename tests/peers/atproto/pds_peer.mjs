// The reference AT Protocol PDS (`@atproto/pds`) and PLC directory (`@did-plc/server`, in-memory
// database) in one Node process, for tests/peers/atproto. Node, as the PDS runs in production
// (its `better-sqlite3` addon is compiled for this Node at install). Both listen on 127.0.0.1
// port 0 over plain HTTP; the test puts TLS in front. Prints one JSON line `{"pds": <port>, "plc": <port>}` when both listen;
// stops on SIGTERM.
//
// Environment: PDS_MODULES and PLC_MODULES (folders whose node_modules hold the packages), and the
// PDS's own `PDS_*` variables (hostname, data folders, secrets), set by the test.
import { createRequire } from "node:module";
import { once } from "node:events";
import { join } from "node:path";

const pdsRequire = createRequire(join(process.env.PDS_MODULES, "package.json"));
const plcRequire = createRequire(join(process.env.PLC_MODULES, "package.json"));
const { PDS, envToCfg, envToSecrets, readEnv } = pdsRequire("@atproto/pds");
const { PlcServer, Database } = plcRequire("@did-plc/server");

const plc = PlcServer.create({ db: Database.mock(), port: 0 });
// PlcServer.start() and PDS.start() listen on every interface; these bind loopback only.
plc.server = plc.app.listen(0, "127.0.0.1");
await once(plc.server, "listening");
const plcPort = plc.server.address().port;

process.env.PDS_DID_PLC_URL = `http://127.0.0.1:${plcPort}`;
const env = readEnv();
const pds = await PDS.create(envToCfg(env), envToSecrets(env));
await pds.ctx.sequencer.start();
pds.server = pds.app.listen(0, "127.0.0.1");
await once(pds.server, "listening");

process.stdout.write(JSON.stringify({ pds: pds.server.address().port, plc: plcPort }) + "\n");

process.once("SIGTERM", async () => {
  pds.server.closeAllConnections();
  plc.server.closeAllConnections();
  await pds.destroy();
  pds.server.close();
  plc.server.close();
  process.exit(0);
});
