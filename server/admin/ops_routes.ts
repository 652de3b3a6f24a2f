/**
 * The operational routes of the internal API: `GET /internal/stats`,
 * `POST /internal/sessions/cleanup` and `GET /internal/metrics`.
 *
 * @module
 */
import type { ServiceDeps } from "../deps.ts";
import { auditOperatorAction } from "./audit.ts";
import { USER_STATUSES } from "./user_input.ts";
import type { OperatorHandler } from "./user_routes.ts";

const NO_STORE = { "Cache-Control": "no-store" };

/**
 * The handlers of the operational routes, by `METHOD pattern`.
 *
 * - stats: `{users: {total, active, suspended, Deleted, …}, sessions: {live}}` read from
 *   counters kept in the same commits as the writes they count (no scan);
 * - cleanup: runs one bounded batch of the expired-session sweep (which `serve` also runs
 *   hourly on its own), answers `{deleted: N}` for what this call deleted;
 * - metrics: the process's metrics in the Prometheus text format.
 *
 * @param deps store, clock, logger and metrics
 * @returns the handlers
 */
export function opsRoutes(
  deps: Pick<ServiceDeps, "store" | "clock" | "log" | "metrics">,
): Record<string, OperatorHandler> {
  return {
    "GET /internal/stats": async () => {
      const counts = await deps.store.stats.read();
      const byStatus: Record<string, number> = {};
      for (const s of USER_STATUSES) byStatus[s] = 0;
      for (const [s, n] of Object.entries(counts.users)) byStatus[s] = n;
      const total = Object.values(byStatus).reduce((a, b) => a + b, 0);
      return Response.json(
        { users: { total, ...byStatus }, sessions: { live: counts.sessions } },
        { headers: NO_STORE },
      );
    },
    "POST /internal/sessions/cleanup": async (r) => {
      const deleted = await deps.store.housekeeping.sweepExpired(deps.clock.now());
      auditOperatorAction(deps.log, r.operator, "sessions.cleanup", { deleted });
      return Response.json({ deleted }, { headers: NO_STORE });
    },
    "GET /internal/metrics": () =>
      Promise.resolve(
        new Response(deps.metrics.render(), {
          headers: { ...NO_STORE, "Content-Type": "text/plain; version=0.0.4; charset=utf-8" },
        }),
      ),
  };
}
