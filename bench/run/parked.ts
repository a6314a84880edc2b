import { parkedJobs, ParkedResult } from '../parked-jobs';
import { fmt } from './figures';
import { ADMIN_URL, PARKED, WORKER_CACHE } from './options';

/** The memory scenario (bench/parked-jobs.ts, `--parked N`): each process's idle and peak RSS, its growth, the completions. */
export async function runParked(temporalAddress: string) {
  console.log(`\nmemory: ${PARKED} jobs parked waiting for their completion (API and worker as separate production processes)`);
  const r: ParkedResult = await parkedJobs({
    adminUrl: ADMIN_URL,
    temporalAddress,
    n: PARKED,
    workerEnv: WORKER_CACHE ? { WORKER_MAX_CACHED_WORKFLOWS: WORKER_CACHE } : undefined,
    log: (l) => console.log(l),
  });
  const first = r.samples[0],
    peak = r.samples.reduce((a, s) => ({ api: Math.max(a.api, s.api), worker: Math.max(a.worker, s.worker) }), { api: 0, worker: 0 });
  // Once the sticky cache is full (the first step holds more jobs than it), growth per 1,000 more parked jobs.
  const full = r.samples[r.samples.length - 2],
    filled = r.samples[1];
  const perK = (x: number, y: number) => ((y - x) / (full.parked - filled.parked)) * 1000;
  for (const side of ['api', 'worker'] as const) {
    console.log(
      `  ${side === 'api' ? 'API   ' : 'worker'} idle ${fmt(first[side])} MB, peak ${fmt(peak[side])} MB (idle + ${fmt(peak[side] - first[side])} MB), ` +
        `${fmt(perK(filled[side], full[side]))} MB per 1,000 more parked jobs from ${filled.parked} to ${full.parked}`,
    );
  }
  console.log(
    `  completed afterwards: ${r.completed} of ${r.jobs} answered 200, ${r.success} jobs success, in ${fmt(r.completeMs / 1000)} s`,
  );
}
