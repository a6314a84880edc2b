import pino from 'pino';
import { Harness } from '../../../helpers/harness';
import { activeModel } from '../../../helpers/fixtures';
import * as jobsRepo from '../../../../src/db/jobs.repository';
import { createJobRuns } from '../../../../src/domain/jobs/run/job-runs';
import { UserSchemaCompiler } from '../../../../src/domain/common/json-schemas';
import { WorkflowStartRefused, type JobGateway } from '../../../../src/domain/ports/job-gateway.port';
import { uuidv7 } from '../../../../src/ids';
import { testSecretBox } from '../../../helpers/secret-keys';
import { createOutbox } from '../../../../src/domain/webhooks';
import { outboxStore } from '../../../../src/db/outbox.repository';

/**
 * The job workflow's outcome step (job-outcomes.ts `commitOutcome`) and the start of the cascade jobs it creates, run as
 * the activities run them, against Postgres. No worker: the source job's row is made here, as a dispatch leaves it.
 */
describe('the one-step outcome of a job', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  const runsWith = (gateway: JobGateway) =>
    createJobRuns({
      outbox: createOutbox(outboxStore),
      knex: h.knex,
      schemas: new UserSchemaCompiler(),
      gateway,
      log: pino({ level: 'silent' }),
      maxCascadeDepth: 5,
      secrets: testSecretBox,
    });

  async function subscribe(source: string, target: string, input?: Record<string, unknown>) {
    const res = await h.api('POST', `/v2/models/${source}/event-subscriptions`, {
      body: {
        trigger_event: 'inference_complete',
        target_model_id: target,
        target_action: 'inference',
        ...(input ? { input_source: 'stored', input } : { input_source: 'trigger_output' }),
      },
    });
    expect(res.status).toBe(201);
    return res.body.subscription_id as string;
  }

  async function runningJob(modelId: string): Promise<string> {
    const { row } = await jobsRepo.insertJob(h.knex, {
      job_id: uuidv7(),
      model_id: modelId,
      model_version: '1',
      job_type: 'inference',
      trigger: 'direct',
      input: {},
    });
    await h.knex('model_jobs').where({ job_id: row.job_id }).update({ status: 'running' });
    return row.job_id;
  }

  it('records the outcome, creates the cascade jobs and stores the answer in one transaction; a re-run returns the same', async () => {
    const contract = { inference: { input_schema: { type: 'object', required: ['score'] } } };
    const source = await activeModel(h);
    const fits = await activeModel(h, { handler_contracts: contract });
    const strict = await activeModel(h, { handler_contracts: { inference: { input_schema: { type: 'object', required: ['other'] } } } });
    const good = await subscribe(source, fits);
    const bad = await subscribe(source, strict);
    const jobId = await runningJob(source);
    const runs = runsWith(h.gateway);

    const finished = await runs.finish(jobId, { status: 'success', output: { score: 1 } });
    const cascadeId = finished.result.triggered_events.find((e) => e.subscription_id === good)?.job_id;
    expect(finished.status).toBe('success');
    expect(finished.result.triggered_events).toEqual([
      { subscription_id: good, job_id: cascadeId },
      { subscription_id: bad, error: expect.stringContaining(`payload does not match the input_schema of ${strict}`) },
    ]);
    expect(finished.launch).toEqual([cascadeId]);
    const stored = (await jobsRepo.findJob(h.knex, jobId))!;
    expect(stored).toMatchObject({ status: 'success', output: { score: 1 }, completion_result: finished.result });
    expect(await jobsRepo.findJob(h.knex, cascadeId!)).toMatchObject({
      status: 'pending',
      trigger: 'cascade',
      model_id: fits,
      source_job_id: jobId,
      root_job_id: jobId,
      cascade_depth: 1,
      input: { score: 1 },
    });

    // The local activity run again after its commit, with another report even: the recorded answer, nothing new.
    expect(await runs.finish(jobId, { status: 'failure' })).toEqual(finished);
    expect(await h.knex('model_jobs').where({ source_job_id: jobId }).count({ n: '*' })).toEqual([{ n: 1 }]);
  });

  it('records a failure or a time-out without cascades', async () => {
    const source = await activeModel(h);
    await subscribe(source, await activeModel(h));
    const failed = await runningJob(source);
    const timedOut = await runningJob(source);
    const runs = runsWith(h.gateway);
    expect(await runs.finish(failed, { status: 'failure', error: { reason: 'oom' } })).toMatchObject({
      status: 'failure',
      result: { status: 'failure', triggered_events: [] },
      launch: [],
    });
    expect(await runs.finish(timedOut, null)).toMatchObject({ status: 'timed_out', result: { status: 'failure' }, launch: [] });
    expect(await jobsRepo.findJob(h.knex, timedOut)).toMatchObject({ status: 'timed_out', error: { reason: 'timed_out' } });
    expect(await h.knex('model_jobs').whereIn('source_job_id', [failed, timedOut]).count({ n: '*' })).toEqual([{ n: 0 }]);
  });

  it('marks a cascade job failed when Temporal refuses its start for good, and retries a start that failed otherwise', async () => {
    const source = await activeModel(h);
    await subscribe(source, await activeModel(h), { k: 1 });
    const jobId = await runningJob(source);
    const finished = await runsWith(h.gateway).finish(jobId, { status: 'success' });
    const [cascadeId] = finished.launch;

    const unavailable = new Error('14 UNAVAILABLE: connection refused');
    const down: JobGateway = { ...h.gateway, launch: () => Promise.reject(unavailable) };
    await expect(runsWith(down).launchJobs(finished.launch)).rejects.toBe(unavailable);
    expect((await jobsRepo.findJob(h.knex, cascadeId))!.status).toBe('pending');

    const refusing: JobGateway = {
      ...h.gateway,
      launch: () => Promise.reject(new WorkflowStartRefused('Temporal refused to start the job: namespace not found', { cause: null })),
    };
    await runsWith(refusing).launchJobs(finished.launch);
    expect(await jobsRepo.findJob(h.knex, cascadeId)).toMatchObject({
      status: 'failure',
      error: { reason: 'start_refused', message: expect.stringContaining('namespace not found') },
    });
  });
});
