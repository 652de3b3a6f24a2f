/**
 * The agent's HTTP hook listener: the MicroVM service calls `POST /run` with the run hook
 * payload when the VM starts; the CLI's keep-alive requests `GET /healthz`.
 *
 * @module
 */
import { DeployError } from "../../../errors.ts";
import { fromWire, type JobInput } from "../../../job/job_input.ts";

/** The port the agent's hook listener uses (`hooks.port` of the builder image). */
export const AGENT_HOOK_PORT = 8080;

/**
 * Builds the hook handler. `POST /run` checks the job, starts it in the background and answers
 * 202 at once (the build outlives the hook's timeout); a second job while one runs is a 409.
 * A job that does not parse is a 400 with the reason, and `onInvalid` logs the failure marker.
 *
 * @param start runs a job (its promise is tracked, not awaited by the response)
 * @param onInvalid called with the reason when a payload is not a job
 * @returns the request handler
 */
export function createHookHandler(
  start: (job: JobInput) => Promise<unknown>,
  onInvalid: (reason: string) => void,
): (req: Request) => Promise<Response> {
  let running: Promise<unknown> | undefined;
  return async (req) => {
    const path = new URL(req.url).pathname.replace(/\/+$/, "");
    if (req.method === "GET" && (path === "/healthz" || path === "")) {
      return Response.json({ ok: true, building: running !== undefined });
    }
    if (req.method === "POST" && path === "/run") {
      let job: JobInput;
      try {
        job = fromWire(await req.text());
      } catch (err) {
        if (!(err instanceof DeployError)) throw err;
        onInvalid(err.message);
        return Response.json({ error: err.message }, { status: 400 });
      }
      if (running) return Response.json({ error: "a build is running" }, { status: 409 });
      running = start(job).finally(() => running = undefined);
      return Response.json({ accepted: job.buildId }, { status: 202 });
    }
    // Suspend/resume/terminate hooks need nothing from the agent.
    if (req.method === "POST") return Response.json({ ok: true });
    return new Response("not found", { status: 404 });
  };
}
