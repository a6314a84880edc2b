import { performance } from 'node:perf_hooks';
import { startBare } from '../baselines';
import { load, percentile } from '../http-load';
import { sleep } from './figures';
import { COMPLETIONS, TIMELINE } from './options';
import type { RoundContext } from './round-context';

/** Completions, one at a time: a job parked by the `manual` handler, reported through the API. */
async function parkService({ knex, base, must }: RoundContext, modelId: string, n: number): Promise<string[]> {
  const ids: string[] = [];
  await load(n, 8, async () => {
    ids.push(JSON.parse(await must('POST', `${base}/v2/models/${modelId}/versions/1/infer`, { input: { x: 1 } }, 202)).job_id);
  });
  for (;;) {
    const { n: pending } = (await knex('model_jobs').whereIn('job_id', ids).where({ status: 'pending' }).count({ n: '*' }).first()) as {
      n: number;
    };
    if (pending === 0) break;
    await sleep(50);
  }
  await sleep(300);
  return ids;
}

// One completion at a time. `settled`: the next waits until the last one's workflow and those of the cascade jobs it
// fired have closed (not only their rows final: each still closes its workflow after), so its figure is the
// completion's own latency; back to back, each also competes with the cascades still running.
async function completeService(
  { base, token, call, temporal, figures }: RoundContext,
  modelId: string,
  ids: string[],
  name: string,
  settled: boolean,
) {
  const ms: number[] = [];
  for (const [i, id] of ids.entries()) {
    const started = performance.now();
    const res = await call('POST', `${base}/v2/models/${modelId}/versions/1/jobs/${id}/complete`, token, {
      status: 'success',
      output: { i },
    });
    ms.push(performance.now() - started);
    if (res.status !== 200) throw new Error(`completion: ${res.status} ${res.body}`);
    const fired = (JSON.parse(res.body) as { triggered_events: { job_id: string }[] }).triggered_events.map((e) => e.job_id);
    // The source's workflow closes after it has started its cascades' workflows: waited for first, they exist after.
    const closed = (jobId: string) => temporal.workflow.getHandle(`job-${jobId}`).result();
    if (settled) await closed(id).then(() => Promise.all(fired.map(closed)));
  }
  figures.note(
    name,
    percentile(
      [...ms].sort((a, b) => a - b),
      50,
    ),
  );
}

/** The round's jobs to complete: `--completions` parked on `manual-0` (no subscriptions), as many on `manual-10`. */
export async function parkForCompletions(ctx: RoundContext) {
  const none = await parkService(ctx, 'manual-0', COMPLETIONS);
  const ten = await parkService(ctx, 'manual-10', COMPLETIONS);
  return { none, ten };
}

/**
 * The service's completions of the parked jobs: every `manual-0` job, then half the `manual-10` jobs settled, the
 * other half back to back. With `--timeline`, the last job's id goes to `timelines`.
 */
export async function completeParked(ctx: RoundContext, { none, ten }: { none: string[]; ten: string[] }, timelines: string[]) {
  await completeService(ctx, 'manual-0', none, 'service.complete0', true);
  await completeService(ctx, 'manual-10', ten.slice(0, COMPLETIONS / 2), 'service.complete10', true);
  await completeService(ctx, 'manual-10', ten.slice(COMPLETIONS / 2), 'service.complete10b2b', false);
  if (TIMELINE) timelines.push(ten[ten.length - 1]);
}

/** The bare side: `--completions` waiting workflows, then one update each, one at a time. */
export async function bareUpdates({ temporal, stamp, figures }: RoundContext, round: number) {
  const handles = await Promise.all(
    Array.from({ length: COMPLETIONS }, (_, i) => startBare(temporal, `bare-park-${stamp}-${round}-${i}`, 'park')),
  );
  await sleep(500);
  const r = await load(handles.length, 1, async (i) => {
    await handles[i].executeUpdate('finish', { args: [{ i }] });
  });
  figures.note('bare.update', r.p50);
}
