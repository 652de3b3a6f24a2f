/**
 * The audit line of an operator action: one structured log line naming the action, the
 * operator's principal and what changed, written by every internal-API route that changes
 * something (and so by the console, which calls those routes).
 *
 * @module
 */
import type { Logger } from "@org/shared";
import type { OperatorPrincipal } from "../auth/operator_gate.ts";

/**
 * Logs `action` by `operator` with `fields` (ids and field names only: never a token or a
 * claim value).
 *
 * @param log the request's logger
 * @param operator the authenticated principal
 * @param action a stable dotted name (`user.update`, `session.revoke`)
 * @param fields what the action touched
 *
 * @example
 * ```ts
 * import type { Logger } from "@org/shared";
 * import type { OperatorPrincipal } from "../auth/operator_gate.ts";
 *
 * const audit = (log: Logger, operator: OperatorPrincipal) =>
 *   auditOperatorAction(log, operator, "session.revoke", { user: "usr_…", session: "ses_…" });
 * ```
 */
export function auditOperatorAction(
  log: Logger,
  operator: OperatorPrincipal,
  action: string,
  fields: Readonly<Record<string, unknown>>,
): void {
  log.info("internal api", {
    action,
    operator: operator.subject,
    auth: operator.method,
    peer: operator.peer,
    ...fields,
  });
}
