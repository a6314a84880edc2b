import { readdirSync, readFileSync } from 'node:fs';

export interface CpuSnapshot {
  /** This process, every thread (the API, the worker and its workflow threads, the bare side, the load generator), and the `--worker-core` worker process. */
  node: number;
  /** The Temporal server's process (`temporal` dev server or `temporal-server`). */
  temporal: number;
  /** Every Postgres process: the backends of both sides' pools and Temporal's own, and the background writers. */
  postgres: number;
}

const TICKS_PER_SECOND = 100;

/** Other processes of the bench whose CPU counts as its node (the `--worker-core` worker process). */
const alsoNode = new Set<number>();
export const countAsNode = (pid: number) => alsoNode.add(pid);

/** Every process on the machine with its name and CPU seconds used so far, from /proc (Linux). */
export function processes(): { pid: number; name: string; seconds: number }[] {
  const found: { pid: number; name: string; seconds: number }[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    // Fields after the name: utime and stime are the 14th and 15th of the whole line.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    found.push({ pid: Number(pid), name, seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND });
  }
  return found;
}

/** CPU seconds used so far; a process that ended between two snapshots is not counted. */
export function cpuSnapshot(): CpuSnapshot {
  const usage = process.cpuUsage();
  const snap: CpuSnapshot = { node: (usage.user + usage.system) / 1e6, temporal: 0, postgres: 0 };
  for (const { pid, name, seconds } of processes()) {
    if (alsoNode.has(pid)) snap.node += seconds;
    else if (name.startsWith('temporal')) snap.temporal += seconds;
    else if (name.startsWith('postgres')) snap.postgres += seconds;
  }
  return snap;
}

export const CPU_PARTS = ['node', 'temporal', 'postgres'] as const;

/** CPU milliseconds per unit of work between two snapshots. */
export function cpuPer(before: CpuSnapshot, after: CpuSnapshot, units: number): CpuSnapshot {
  const per = (k: keyof CpuSnapshot) => ((after[k] - before[k]) / units) * 1000;
  return { node: per('node'), temporal: per('temporal'), postgres: per('postgres') };
}
