/**
 * Per-thread CPU time of this process (Linux `/proc/self/task/<tid>/schedstat`), so a benchmark
 * that runs its load generator in a worker thread can say how much CPU went to the server's
 * thread, to the load generator and to the runtime's helper threads (KV, I/O pool, GC).
 * Elsewhere than Linux every figure reads 0.
 *
 * @module
 */

/** CPU nanoseconds by thread id, with the thread's name. */
export type ThreadSnapshot = ReadonlyMap<string, { readonly name: string; readonly ns: number }>;

/** Reads every thread's CPU time so far. */
export function threadSnapshot(): ThreadSnapshot {
  const out = new Map<string, { name: string; ns: number }>();
  let dir: Iterable<Deno.DirEntry>;
  try {
    dir = Deno.readDirSync("/proc/self/task");
  } catch {
    return out;
  }
  for (const t of dir) {
    try {
      const ns = Number(Deno.readTextFileSync(`/proc/self/task/${t.name}/schedstat`).split(" ")[0]);
      const name = Deno.readTextFileSync(`/proc/self/task/${t.name}/comm`).trim();
      out.set(t.name, { name, ns });
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/**
 * CPU µs spent between two snapshots, split into the main thread (`main`, which runs the
 * server), threads whose name starts with `worker` (`workers`, the load generator) and all
 * other threads (`runtime`: KV, I/O pool, V8 helpers).
 *
 * @param before the earlier snapshot
 * @param after the later snapshot
 * @param mainTid the main thread's id (the process id)
 * @returns µs per group
 */
export function threadCpuUs(
  before: ThreadSnapshot,
  after: ThreadSnapshot,
  mainTid: string,
): { main: number; workers: number; runtime: number } {
  const sums = { main: 0, workers: 0, runtime: 0 };
  for (const [tid, t] of after) {
    const ns = t.ns - (before.get(tid)?.ns ?? 0);
    const group = tid === mainTid ? "main" : t.name.startsWith("worker") ? "workers" : "runtime";
    sums[group] += ns / 1000;
  }
  return sums;
}

/**
 * Threads of this process that are in `after` but not in `before` and whose name starts with
 * `worker`: the thread of a worker started between the two snapshots.
 */
export function newWorkerThreads(before: ThreadSnapshot, after: ThreadSnapshot): Set<string> {
  const out = new Set<string>();
  for (const [tid, t] of after) {
    if (!before.has(tid) && t.name.startsWith("worker")) out.add(tid);
  }
  return out;
}

/**
 * CPU µs the threads `tids` spent between two snapshots.
 *
 * @param before the earlier snapshot
 * @param after the later snapshot
 * @param tids the threads to count
 */
export function threadsCpuUs(
  before: ThreadSnapshot,
  after: ThreadSnapshot,
  tids: ReadonlySet<string>,
): number {
  let ns = 0;
  for (const tid of tids) ns += (after.get(tid)?.ns ?? 0) - (before.get(tid)?.ns ?? 0);
  return ns / 1000;
}
