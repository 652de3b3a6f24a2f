/**
 * A free loopback port for a peer that must be told its port up front (a subprocess, a server
 * library without port 0).
 *
 * @module
 */

/** A port free on 127.0.0.1 right now (the caller binds it soon after, or retries). */
export function freePort(): number {
  const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (l.addr as Deno.NetAddr).port;
  l.close();
  return port;
}
