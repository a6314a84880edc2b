import { execFileSync } from 'node:child_process';
import { processes } from '../cpu';

/** The processes `--pin` moves to the first core: the Temporal server and every Postgres process. */
const servers = () => processes().filter((p) => p.name.startsWith('temporal') || p.name.startsWith('postgres'));

const taskset = (cpus: string, pid: number) => {
  try {
    execFileSync('taskset', ['--all-tasks', '--cpu-list', '--pid', cpus, String(pid)], { stdio: 'ignore' });
  } catch {
    // A Postgres backend that ended meanwhile.
  }
};

/**
 * `--pin`: this process (the API, the worker and its workflow threads, the bare side, the load generator) on the
 * second core, Temporal and Postgres on the first, so that what the job path costs in node is measured apart from
 * the servers it calls. With `--worker-core`, the bench's worker process (`workerPid`: the service's and the bare
 * worker) alone on the second core and everything else on the first. New Postgres backends inherit the
 * postmaster's core. Returns the undo: every core again.
 */
export function pinCores(workerPid?: number): () => void {
  const alone = workerPid ?? process.pid;
  const shared = workerPid === undefined ? servers().map((p) => p.pid) : [process.pid, ...servers().map((p) => p.pid)];
  taskset('1', alone);
  for (const pid of shared) taskset('0', pid);
  console.log(
    workerPid === undefined
      ? `pinned: this process to CPU 1; Temporal and Postgres (${shared.length} processes) to CPU 0`
      : `pinned: the worker process to CPU 1; this process (the API, the load), Temporal and Postgres (${shared.length} processes) to CPU 0`,
  );
  return () => {
    for (const pid of [alone, ...shared]) taskset('0-1', pid);
  };
}
