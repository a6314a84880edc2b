/** The flags of `npm run bench` (the header comment of bench/run.ts, bench/README.md), read once from the command line. */
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
export const TEMPORAL = arg('temporal', 'dev');
export const ROUNDS = Number(arg('rounds', '3'));
export const PARKED = Number(arg('parked', '2000'));
export const ONLY = arg('only', 'all');
export const INITS = Number(arg('inits', '200'));
export const INIT_CONCURRENCY = 16;
export const READS = Number(arg('reads', '2000'));
export const READ_CONNECTIONS = 32;
export const COMPLETIONS = Number(arg('completions', '30'));
export const TIMELINE = process.argv.includes('--timeline');
/** The Postgres pool the bench's API and worker share. */
export const POOL = Number(arg('pool', '10'));
/** The parked-jobs worker's sticky cache size (WORKER_MAX_CACHED_WORKFLOWS); its default when absent. */
export const WORKER_CACHE = arg('worker-cache', '');
/** Which of each round's phases run (for profiling one path): jobs, reads, completions. */
export const PHASES = new Set(arg('phases', 'jobs,reads,completions').split(','));
/** The noisy-neighbour phase: the flooding tenant's inits; 0 skips it. */
export const NOISY = Number(arg('noisy', '1500'));
/** `--statements`: the statements per echo job by their SQL, and the events of one job's history on each side. */
export const STATEMENTS = process.argv.includes('--statements');
/**
 * `--floor R` (npm run bench:floor): exit 1 when the end-to-end ratio (service jobs/s over bare workflows/s, medians of
 * the rounds) is below R; 0 checks nothing.
 */
export const FLOOR = Number(arg('floor', '0'));
/** `--pin`: this process on one core, Temporal and Postgres on the other (bench/run/pin.ts). */
export const PIN = process.argv.includes('--pin');
/**
 * `--worker-core`: the service's job worker and the bare worker in a process of their own (bench/run/worker-child.ts);
 * with `--pin` that process gets the second core and everything else the first.
 */
export const WORKER_CORE = process.argv.includes('--worker-core');
