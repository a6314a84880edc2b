import type { Register } from './types';
import { page, jobContext } from '../http/routing';
import type { JobsService } from '../domain/jobs';
import type { createJobStarts } from '../domain/job-starts';

export function registerJobRoutes(route: Register, jobs: JobsService, starts: ReturnType<typeof createJobStarts>) {
  route('startTraining', async (r) => starts.train(r.params.model_id, r.params.model_version, r.body, jobContext(r, 'startTraining')));

  route('startInference', async (r) => starts.infer(r.params.model_id, r.params.model_version, r.body, jobContext(r, 'startInference')));

  route('listVersionJobs', async (r) =>
    jobs.list(
      { model_id: r.params.model_id, model_version: r.params.model_version, status: r.query.status, job_type: r.query.job_type },
      page(r),
    ),
  );

  route('getJob', async ({ ctx, params: p }) => jobs.get(ctx.state.principal, p.model_id, p.model_version, p.model_job_id));

  route('getJobById', async ({ ctx, params: p }) => jobs.getById(ctx.state.principal, p.job_id));

  route('completeJob', async ({ ctx, params: p, body }) => {
    const result = await jobs.complete(ctx.state.principal, p.model_id, p.model_version, p.model_job_id, body);
    ctx.status = result.triggered_events.some((e) => e.error) ? 207 : 200;
    return result;
  });

  route('listClientJobs', async (r) =>
    jobs.listForClient(
      r.params.client_id,
      {
        status: r.query.status,
        job_type: r.query.job_type,
        model_id: r.query.model_id,
        service_id: r.query.service_id,
        assignment_id: r.query.assignment_id,
      },
      page(r),
    ),
  );
}
