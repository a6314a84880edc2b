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
 * the servers it calls. New Postgres backends inherit the postmaster's core. Returns the undo: every core again.
 */
export function pinCores(): () => void {
  taskset('1', process.pid);
  for (const p of servers()) taskset('0', p.pid);
  console.log(`pinned: this process to CPU 1; Temporal and Postgres (${servers().length} processes) to CPU 0`);
  return () => {
    taskset('0-1', process.pid);
    for (const p of servers()) taskset('0-1', p.pid);
  };
}
