/**
 * Follows one CloudWatch Logs stream from its head: each `poll()` returns the events that
 * arrived since the last one, using `nextForwardToken`.
 *
 * @module
 */
import { type CloudWatchLogsClient, GetLogEventsCommand } from "@aws-sdk/client-cloudwatch-logs";

/** One log line with its time. */
export interface LogLine {
  /** Event time, ms since epoch. */
  readonly timestamp: number;
  /** The line. */
  readonly message: string;
}

/** A tail on one stream. */
export interface LogTail {
  /** Events since the previous call (all of them on the first), oldest first. */
  poll(): Promise<LogLine[]>;
}

/**
 * Creates a tail. A stream or group that does not exist yet reads as empty (the VM creates the
 * stream when it first writes).
 *
 * @param logs the Logs client
 * @param group log group
 * @param stream log stream
 * @returns the tail
 */
export function createLogTail(logs: CloudWatchLogsClient, group: string, stream: string): LogTail {
  let token: string | undefined;
  return {
    async poll() {
      const lines: LogLine[] = [];
      for (;;) {
        let out;
        try {
          out = await logs.send(
            new GetLogEventsCommand({
              logGroupName: group,
              logStreamName: stream,
              startFromHead: true,
              ...(token ? { nextToken: token } : {}),
            }),
          );
        } catch (err) {
          if ((err as { name?: string }).name === "ResourceNotFoundException") return lines;
          throw err;
        }
        for (const e of out.events ?? []) {
          lines.push({ timestamp: e.timestamp ?? 0, message: e.message ?? "" });
        }
        // At the end of a stream the service hands back the token it was given.
        const next = out.nextForwardToken;
        const more = next !== undefined && next !== token && (out.events?.length ?? 0) > 0;
        if (next !== undefined) token = next;
        if (!more) return lines;
      }
    },
  };
}

/**
 * Reads a whole stream from its head (the `logs` command).
 *
 * @param logs the Logs client
 * @param group log group
 * @param stream log stream
 * @returns every event, oldest first; empty when the stream does not exist
 */
export function readLogStream(
  logs: CloudWatchLogsClient,
  group: string,
  stream: string,
): Promise<LogLine[]> {
  return createLogTail(logs, group, stream).poll();
}
