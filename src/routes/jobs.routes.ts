import type { Register } from './types';
import { page, answerStarted, jobContext } from '../http/routing';
import type { JobsService } from '../domain/jobs';
import type { createJobStarts } from '../domain/jobs';

/** The search filters of a job list's query: everything but the page parameters. */
function filtersOf<Q extends { limit?: number; cursor?: string }>(query: Q): Omit<Q, 'limit' | 'cursor'> {
  const filters: Partial<Q> = { ...query };
  delete filters.limit;
  delete filters.cursor;
  return filters as Omit<Q, 'limit' | 'cursor'>;
}

export function registerJobRoutes(route: Register, jobs: JobsService, starts: ReturnType<typeof createJobStarts>) {
  route('startTraining', async (r) =>
    answerStarted(r, await starts.train(r.params.model_id, r.params.model_version, r.body, jobContext(r, 'startTraining'))),
  );

  route('startInference', async (r) =>
    answerStarted(r, await starts.infer(r.params.model_id, r.params.model_version, r.body, jobContext(r, 'startInference'))),
  );

  route('listVersionJobs', async (r) =>
    jobs.listForVersion(
      r.ctx.state.principal,
      { model_id: r.params.model_id, model_version: r.params.model_version, status: r.query.status, job_type: r.query.job_type },
      page(r),
    ),
  );

  route('getJob', async ({ ctx, params: p, query }) =>
    jobs.get(ctx.state.principal, p.model_id, p.model_version, p.model_job_id, query.wait ?? 0),
  );

  route('getJobById', async ({ ctx, params: p, query }) => jobs.getById(ctx.state.principal, p.job_id, query.wait ?? 0));

  route('searchJobs', async (r) => jobs.search(r.ctx.state.principal, filtersOf(r.query), page(r)));

  route('getJobLineage', async ({ ctx, params: p }) => jobs.lineage(ctx.state.principal, p.job_id));

  route('cancelJob', async ({ ctx, params: p, body }) => jobs.cancel(ctx.state.principal, p.job_id, body?.reason));

  route('rerunJob', async (r) => answerStarted(r, await starts.rerun(r.ctx.state.principal, r.params.job_id, jobContext(r, 'rerunJob'))));

  route('completeJob', async ({ ctx, params: p, body }) => {
    const result = await jobs.complete(ctx.state.principal, p.model_id, p.model_version, p.model_job_id, body);
    ctx.status = result.triggered_events.some((e) => e.error) ? 207 : 200;
    return result;
  });

  route('listClientJobs', async (r) => jobs.listForClient(r.params.client_id, filtersOf(r.query), page(r)));
}
