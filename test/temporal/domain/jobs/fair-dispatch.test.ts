import { Context } from '@temporalio/activity';
import type { Priority } from '@temporalio/common';
import { Harness, uid } from '../../../helpers/harness';
import { activeModel, tenantWithDomain, initService, eventually } from '../../../helpers/fixtures';
import { builtinImplementations } from '../../../../activities/in-process/registry';
import * as jobsRepo from '../../../../src/db/jobs.repository';
import { uuidv7 } from '../../../../src/ids';

/** How long tenant B's job may take behind tenant A's backlog of 500 (docs/fairness.md, "Fair execution"). */
const BACKLOG = 500;
const QUIET_JOB_BOUND_MS = 20_000;

/** Fair execution on Temporal's task-queue fairness: every job carries its tenant (docs/fairness.md). */
describe('fair dispatch', () => {
  describe('the fairness key', () => {
    const seen = new Map<string, Priority | undefined>();
    let h: Harness;
    beforeAll(async () => {
      h = await Harness.start({
        worker: true,
        inProcess: {
          ...builtinImplementations,
          // Runs inside the dispatch activity: what Temporal handed the activity task.
          spy: async (job) => {
            seen.set(job.jobId, Context.current().info.priority);
            return {};
          },
        },
      });
    });
    afterAll(() => h.stop());

    it("puts the tenant's key and weight and the job's priority on its workflow, and its activities inherit them", async () => {
      const modelId = await activeModel(h, {
        handlers: { training: { type: 'in_process', name: 'spy' }, inference: { type: 'in_process', name: 'spy' } },
      });
      const t = await tenantWithDomain(h, { modelId });
      await h.api('PUT', `/v2/clients/${t.clientId}`, { body: { limits: { fairness_weight: 2.5 } } });
      const jobId = (await initService(h, t.base, 's', { seats: 1 })).body.job_id;
      await eventually(async () => (await h.api('GET', `/v2/jobs/${jobId}`)).body.status === 'success', 20000, 'the job done');

      const described = await h.temporal.workflow.getHandle(`job-${jobId}`).describe();
      expect(described.priority).toEqual({ priorityKey: 2, fairnessKey: t.clientId, fairnessWeight: 2.5 });
      expect(described.memo).toMatchObject({ fairness_key: t.clientId, fairness_weight: 2.5, priority: 2 });
      expect(seen.get(jobId)).toEqual({ priorityKey: 2, fairnessKey: t.clientId, fairnessWeight: 2.5 });
    });

    it('gives jobs of no tenant a key of their own, and the priority the request names', async () => {
      const modelId = await activeModel(h);
      const res = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {}, priority: 5 } });
      // The workflow starts right after the 202, in the background: describe it once it exists.
      const handle = h.temporal.workflow.getHandle(`job-${res.body.job_id}`);
      const described = await eventually(() => handle.describe().catch(() => undefined), 20000, 'the job workflow to start');
      expect(described.priority).toEqual({ priorityKey: 5, fairnessKey: '~platform', fairnessWeight: 1 });
    });
  });

  describe(`behind another tenant's backlog of ${BACKLOG} jobs`, () => {
    const [busy, quiet] = [uid('busy'), uid('quiet')];
    let h: Harness;
    beforeAll(async () => {
      // No worker yet: the backlog waits in Temporal's task queue until one polls.
      // CHECK_FIFO=1 runs it with JOB_FAIRNESS=off, first come, first served: then it fails (the quiet job waits its turn).
      h = await Harness.start({ env: { JOB_FAIRNESS: process.env.CHECK_FIFO ? 'off' : 'on' } });
    });

    it(`finishes a job of another tenant within ${QUIET_JOB_BOUND_MS / 1000} s, before half of the backlog`, async () => {
      const modelId = await activeModel(h);
      for (const clientId of [busy, quiet]) await h.api('PUT', `/v2/clients/${clientId}`, { body: {} });
      const write = async (clientId: string) =>
        (
          await jobsRepo.insertJob(h.knex, {
            job_id: uuidv7(),
            model_id: modelId,
            model_version: '1',
            job_type: 'inference',
            trigger: 'direct',
            client_id: clientId,
            input: {},
          })
        ).row;
      const backlog = await Promise.all(Array.from({ length: BACKLOG }, () => write(busy)));
      for (let i = 0; i < backlog.length; i += 25) await Promise.all(backlog.slice(i, i + 25).map((job) => h.gateway.launch(job)));
      const quietJob = await write(quiet);
      await h.gateway.launch(quietJob);

      await h.startWorker();
      const started = Date.now();
      const done = async (ids: string[]) =>
        Number((await h.knex('model_jobs').whereIn('job_id', ids).where({ status: 'success' }).count({ n: '*' }))[0].n);
      await eventually(async () => (await done([quietJob.job_id])) === 1, QUIET_JOB_BOUND_MS, "the quiet tenant's job");
      const tookMs = Date.now() - started;
      const backlogDone = await done(backlog.map((j) => j.job_id));
      console.log(`quiet tenant's job: ${tookMs} ms after the worker started, ${backlogDone} of ${BACKLOG} backlog jobs done by then`);
      expect(tookMs).toBeLessThan(QUIET_JOB_BOUND_MS);
      expect(backlogDone).toBeLessThan(BACKLOG / 2);
    }, 120_000);

    afterAll(async () => {
      // What is left of the backlog goes, so no task of it stays on the shared server and no row stays open.
      await h.stopWorker();
      const open: string[] = await h
        .knex('model_jobs')
        .whereIn('client_id', [busy])
        .whereIn('status', ['pending', 'running'])
        .pluck('job_id');
      for (let i = 0; i < open.length; i += 25) {
        await Promise.all(
          open.slice(i, i + 25).map((id) =>
            h.temporal.workflow
              .getHandle(`job-${id}`)
              .terminate('the fairness test is over')
              .catch(() => undefined),
          ),
        );
      }
      await h
        .knex('model_jobs')
        .whereIn('job_id', open)
        .update({ status: 'failure', error: JSON.stringify({ message: 'left by the fairness test' }) });
      await h.stop();
    });
  });
});
