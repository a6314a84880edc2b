import { performance } from 'node:perf_hooks';
import { startBare } from '../baselines';
import { load } from '../http-load';
import { cpuSnapshot, cpuPer } from '../cpu';
import { sleep } from './figures';
import { INITS, INIT_CONCURRENCY, STATEMENTS } from './options';
import { noteStatement, noteStatementRound, sampled } from './statements';
import type { RoundContext } from './round-context';

/** Init → in-process echo → success: the service's round (inits accepted, then every job's success). */
export async function serviceJobs({ knex, base, departure, must, doneCount, figures, workers }: RoundContext, round: number) {
  // Statements the API and the worker send per job (less the bench's own polls, one statement each).
  let statements = 0;
  const count = (q: { sql?: string }) => {
    statements++;
    if (STATEMENTS) noteStatement(q.sql ?? '');
  };
  knex.on('query', count);
  // With --worker-core the worker's statements are counted in its process, without their SQL.
  const workerBefore = (await workers?.statements()) ?? 0;
  const ids: string[] = [];
  const cpu = cpuSnapshot();
  const started = performance.now();
  const inits = await load(INITS, INIT_CONCURRENCY, async (i) => {
    const body = await must(
      'POST',
      `${base}/v2/clients/bench/domains/d/service/init`,
      { service_id: `r${round}-${i}`, departure_datetime: departure, static_features: { seats: 1 + (i % 800), cabin: 'business' } },
      202,
    );
    ids.push(JSON.parse(body).job_id);
  });
  let polls = 1;
  for (; (await doneCount(ids)) < ids.length; polls++) await sleep(20);
  const wall = performance.now() - started;
  knex.off('query', count);
  statements += ((await workers?.statements()) ?? 0) - workerBefore;
  figures.noteCpu('service', cpuPer(cpu, cpuSnapshot(), INITS));
  figures.note('service.statements', (statements - polls) / INITS);
  if (STATEMENTS) noteStatementRound(INITS, polls);
  sampled.service = `job-${ids[ids.length - 1]}`;
  figures.note('service.inits', inits.perSecond);
  figures.note('service.initP50', inits.p50);
  figures.note('service.initP99', inits.p99);
  figures.note('service.e2e', (INITS / wall) * 1000);
}

/** The bare client: starts of the same-shape workflow (16 in flight), then every run's end. */
export async function bareJobs({ temporal, stamp, figures }: RoundContext, round: number) {
  const results: Promise<unknown>[] = [];
  const cpu = cpuSnapshot();
  const started = performance.now();
  const starts = await load(INITS, INIT_CONCURRENCY, async (i) => {
    const handle = await startBare(temporal, `bare-${stamp}-${round}-${i}`, 'job');
    results.push(handle.result());
  });
  await Promise.all(results);
  sampled.bare = `bare-${stamp}-${round}-${INITS - 1}`;
  const wall = performance.now() - started;
  figures.noteCpu('bare', cpuPer(cpu, cpuSnapshot(), INITS));
  figures.note('bare.starts', starts.perSecond);
  figures.note('bare.startP50', starts.p50);
  figures.note('bare.startP99', starts.p99);
  figures.note('bare.e2e', (INITS / wall) * 1000);
}
