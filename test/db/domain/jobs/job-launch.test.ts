import pino from 'pino';
import { Harness } from '../../../helpers/harness';
import { activeModel } from '../../../helpers/fixtures';
import * as jobsRepo from '../../../../src/db/jobs.repository';
import { createJobsService } from '../../../../src/domain/jobs/jobs.service';
import { UserSchemaCompiler } from '../../../../src/domain/common/json-schemas';
import { WorkflowStartRefused, type JobGateway } from '../../../../src/domain/ports/job-gateway.port';
import { uuidv7 } from '../../../../src/ids';
import { createOutbox } from '../../../../src/domain/webhooks';
import { outboxStore } from '../../../../src/db/outbox.repository';

/** A committed job's workflow starts after the caller has its answer (docs/decisions.md, "Row first, then workflow"). */
describe('the start of a committed job', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  const serviceWith = (gateway: JobGateway) =>
    createJobsService({
      outbox: createOutbox(outboxStore),
      knex: h.knex,
      gateway,
      schemas: new UserSchemaCompiler(),
      log: pino({ level: 'silent' }),
      completionWaitSeconds: 1,
    });

  async function committedJob(): Promise<jobsRepo.JobView> {
    const { row } = await jobsRepo.insertJob(h.knex, {
      job_id: uuidv7(),
      model_id: await activeModel(h),
      model_version: '1',
      job_type: 'inference',
      trigger: 'direct',
      input: {},
    });
    return row;
  }

  it('answers before Temporal has taken the start, and the start still happens', async () => {
    const job = await committedJob();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const starts: string[] = [];
    const slow: JobGateway = {
      ...h.gateway,
      launch: async (j) => {
        await held;
        starts.push(j.job_id);
        return 'started';
      },
    };
    const jobs = serviceWith(slow);
    expect(await jobs.launch(job)).toEqual({ job_id: job.job_id, job_url: h.gateway.uiUrl(job.job_id) });
    expect(starts).toEqual([]);
    release();
    await jobs.settle();
    expect(starts).toEqual([job.job_id]);
  });

  it('marks the job failed, with the reason, when Temporal refuses its start for good after the answer', async () => {
    const job = await committedJob();
    const refusing: JobGateway = {
      ...h.gateway,
      launch: () => Promise.reject(new WorkflowStartRefused('Temporal refused to start the job: namespace not found', { cause: null })),
    };
    const jobs = serviceWith(refusing);
    expect((await jobs.launch(job)).job_id).toBe(job.job_id);
    await jobs.settle();
    expect(await jobsRepo.findJob(h.knex, job.job_id)).toMatchObject({
      status: 'failure',
      error: { reason: 'start_refused', message: expect.stringContaining('namespace not found') },
    });
  });

  it('leaves the row pending for the reconciler when the start fails otherwise', async () => {
    const job = await committedJob();
    const down: JobGateway = { ...h.gateway, launch: () => Promise.reject(new Error('14 UNAVAILABLE: connection refused')) };
    const jobs = serviceWith(down);
    await jobs.launch(job);
    await jobs.settle();
    expect((await jobsRepo.findJob(h.knex, job.job_id))!.status).toBe('pending');
  });
});
