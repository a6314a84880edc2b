import pino from 'pino';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { AwsStandIn, TEST_AWS } from '../../../helpers/aws-stand-in';
import { Harness, uid } from '../../../helpers/harness';
import { activeModel, tenantWithDomain, initService, eventually } from '../../../helpers/fixtures';
import { startReconciler } from '../../../../src/domain/jobs/launch/reconciler';
import { workflowIdFor } from '../../../../src/domain/ports/job-gateway.port';
import { createOutbox } from '../../../../src/domain/webhooks';
import { outboxStore } from '../../../../src/db/outbox.repository';

const SIMPLE = [{ name: 'seats', json_schema: { type: 'integer' }, mandatory: true }];
const lambdaHandlers = (fn: string) => ({ training: { type: 'lambda', arn: fn }, inference: { type: 'lambda', arn: fn } });

describe('deadlines and recovery', () => {
  let h: Harness;
  let sink: AwsStandIn;
  /** Every line the worker logs, parsed. */
  const workerLines: Record<string, any>[] = [];
  beforeAll(async () => {
    // Nothing answers these Lambda invokes: the endpoint accepts and drops them, so jobs wait for completion.
    sink = await AwsStandIn.start(() => ({ status: 202 }));
    const workerLog = pino({ level: 'warn' }, { write: (line: string) => workerLines.push(JSON.parse(line)) });
    h = await Harness.start({
      worker: true,
      workerLog,
      env: { JOB_COMPLETION_DEADLINE_SECONDS: '2' },
      lambda: new LambdaClient({ ...TEST_AWS, endpoint: sink.url }),
    });
  });
  afterAll(async () => {
    await h.stop();
    await sink.stop();
  });

  it('fails a job that is not reported before its deadline, moves its service to failed, and refuses a late report', async () => {
    const modelId = await activeModel(h, { features: SIMPLE, handlers: lambdaHandlers(uid('fn')) });
    const { base } = await tenantWithDomain(h, { features: SIMPLE, modelId });
    const init = await initService(h, base, 'late', { seats: 1 });
    const job = await eventually(
      async () => {
        const j = (await h.api('GET', `/v2/models/${modelId}/versions/1/jobs/${init.body.job_id}`)).body;
        return j.status === 'timed_out' && j;
      },
      20000,
      'the deadline',
    );
    expect(job.error).toMatchObject({ reason: 'timed_out' });
    expect((await h.api('GET', `${base}/service/late`)).body.status).toBe('failed');
    const late = await h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${init.body.job_id}/complete`, { body: { status: 'success' } });
    expect(late.status).toBe(409);
    expect(late.body.message).toContain('timed out');
  });

  it('completes with a logged warning when the output breaks the output_schema', async () => {
    const fn = uid('fn');
    const modelId = await activeModel(h, {
      handlers: lambdaHandlers(fn),
      handler_contracts: { inference: { output_schema: { type: 'object', required: ['score'] } } },
    });
    const infer = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: {} });
    await eventually(
      async () => (await h.api('GET', `/v2/models/${modelId}/versions/1/jobs/${infer.body.job_id}`)).body.status === 'running',
    );
    const res = await h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${infer.body.job_id}/complete`, {
      body: { status: 'success', output: { other: 1 } },
    });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('success');
    expect(workerLines).toContainEqual(
      expect.objectContaining({
        level: 40,
        jobId: infer.body.job_id,
        modelId,
        msg: 'job output does not match the output_schema of its handler contract',
        problem: expect.stringContaining('score'),
      }),
    );
  });

  it('starts the workflow of a job row whose start was lost', async () => {
    const modelId = await activeModel(h, { features: SIMPLE });
    const jobId = uid('orphan');
    await h.knex('model_jobs').insert({
      job_id: jobId,
      model_id: modelId,
      model_version: '1',
      job_type: 'inference',
      trigger: 'direct',
      input: JSON.stringify({ x: 1 }),
      created_at: new Date(Date.now() - 120000),
    });
    const reconciler = startReconciler({
      outbox: createOutbox(outboxStore),
      knex: h.knex,
      gateway: h.gateway,
      log: pino({ level: 'silent' }),
      everyMs: 3600000,
      redeliverEveryMs: 3600000,
      graceSeconds: 30,
    });
    try {
      await reconciler.runOnce();
    } finally {
      await reconciler.stop();
    }
    const described = await h.temporal.workflow.getHandle(workflowIdFor(jobId)).describe();
    expect(described.type).toBe('modelJobWorkflow');
    const job = await eventually(
      async () => {
        const j = (await h.api('GET', `/v2/models/${modelId}/versions/1/jobs/${jobId}`)).body;
        return j.status === 'success' && j;
      },
      20000,
      'the recovered job',
    );
    expect(job.output).toEqual({ x: 1 });
  });

  it('answers a completion for a job whose workflow is not yet dispatched with 409', async () => {
    const modelId = await activeModel(h);
    const jobId = uid('pending');
    await h.knex('model_jobs').insert({ job_id: jobId, model_id: modelId, model_version: '1', job_type: 'inference', trigger: 'direct' });
    const res = await h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${jobId}/complete`, { body: { status: 'success' } });
    expect(res.status).toBe(409);
    expect((await h.api('POST', `/v2/models/${modelId}/versions/2/jobs/${jobId}/complete`, { body: { status: 'success' } })).status).toBe(
      404,
    );
  });
});
