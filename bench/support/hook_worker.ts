/**
 * The app's access-token hook for the benchmarks, in a thread of its own (as the app's service
 * would be a process of its own): a loopback server that reads each request and answers
 * `{"claims": {…}}` at once. It posts its port once it listens.
 *
 * @module
 */
const scope = self as unknown as { postMessage: (port: number) => void };

const ANSWER = JSON.stringify({ claims: { plan: "pro", org: "org_bench" } });

const server = Deno.serve({
  hostname: "127.0.0.1",
  port: 0,
  onListen: ({ port }) => scope.postMessage(port),
}, async (req) => {
  await req.arrayBuffer();
  return new Response(ANSWER, { headers: { "content-type": "application/json" } });
});
void server.finished;
