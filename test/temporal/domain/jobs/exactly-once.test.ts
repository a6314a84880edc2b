import type { ChildProcess } from 'node:child_process';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { Harness, uid } from '../../../helpers/harness';
import { activeModel, eventually } from '../../../helpers/fixtures';
import { AwsStandIn, TEST_AWS } from '../../../helpers/aws-stand-in';
import { spawnWorkerProcess, killHard } from '../../../helpers/worker-process';
import { testEnv } from '../../../helpers/test-env';
import { builtinImplementations, InProcessRegistry } from '../../../../activities/in-process/registry';
import * as jobsRepo from '../../../../src/db/jobs.repository';
import { fireSubscription } from '../../../../src/domain/jobs/run/cascades';
import { createJobRuns } from '../../../../src/domain/jobs/run/job-runs';
import { UserSchemaCompiler } from '../../../../src/domain/common/json-schemas';
import { startReconciler } from '../../../../src/domain/jobs/launch/reconciler';
import { workflowIdFor } from '../../../../src/domain/ports/job-gateway.port';
import { uuidv7 } from '../../../../src/ids';
import pino from 'pino';
import { testSecretBox } from '../../../helpers/secret-keys';
import { createOutbox } from '../../../../src/domain/webhooks';
import { outboxStore } from '../../../../src/db/outbox.repository';

/** Dispatches per job id of the `count` in-process implementation. */
const dispatches = new Map<string, number>();
const counting: InProcessRegistry = {
  ...builtinImplementations,
  count: async (job) => {
    dispatches.set(job.jobId, (dispatches.get(job.jobId) ?? 0) + 1);
    return { seen: true };
  },
};
const COUNT_HANDLERS = { training: { type: 'in_process', name: 'count' }, inference: { type: 'in_process', name: 'count' } };

describe('a job runs exactly once', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ worker: true, inProcess: counting });
  });
  afterAll(() => h.stop());

  async function runs(jobId: string): Promise<number> {
    let n = 0;
    for await (const _ of h.temporal.workflow.list({ query: `WorkflowId = "${workflowIdFor(jobId)}"` })) n++;
    return n;
  }

  async function finished(jobId: string): Promise<jobsRepo.JobView> {
    return eventually(
      async () => {
        const job = await jobsRepo.findJob(h.knex, jobId);
        return job?.completion_result ? job : undefined;
      },
      20000,
      `job ${jobId} to finish`,
    );
  }

  /**
   * The job's latest run once it has closed. Read from the workflow's own record (not visibility, which lags): a start
   * after this would show as another run id, and a closed run dispatches nothing more.
   */
  async function closedRun(jobId: string): Promise<{ runId: string; status: string }> {
    return eventually(
      async () => {
        const { runId, status } = await h.temporal.workflow.getHandle(workflowIdFor(jobId)).describe();
        return status.name !== 'RUNNING' && { runId, status: status.name };
      },
      20000,
      `the run of job ${jobId} to close`,
    );
  }

  async function inferDirect(modelId: string): Promise<string> {
    const res = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: { n: 1 } } });
    expect(res.status).toBe(202);
    return res.body.job_id;
  }

  it('does not start a closed job again when the reconciler acts on a stale pending row', async () => {
    const modelId = await activeModel(h, { handlers: COUNT_HANDLERS });
    const jobId = await inferDirect(modelId);
    const staleRow = (await jobsRepo.findJob(h.knex, jobId))!;
    await finished(jobId);
    const run = await closedRun(jobId);

    // What the reconciler does with a row it listed as pending before the workflow finished.
    expect(await h.gateway.launch({ ...staleRow, status: 'pending' })).toBe('existing');
    // Still the one closed run (a second dispatch needs a second run), and it dispatched once.
    expect(await closedRun(jobId)).toEqual(run);
    expect(dispatches.get(jobId)).toBe(1);
    expect(await eventually(async () => (await runs(jobId)) || undefined, 10000, 'visibility')).toBe(1);
  });

  it('starts a pending job once when the API and the reconciler race', async () => {
    const modelId = await activeModel(h, { handlers: COUNT_HANDLERS });
    // A committed job row whose workflow has not started yet.
    const { row } = await jobsRepo.insertJob(h.knex, {
      job_id: uuidv7(),
      model_id: modelId,
      model_version: '1',
      job_type: 'inference',
      trigger: 'direct',
      input: {},
    });
    const view = (await jobsRepo.findJob(h.knex, row.job_id))!;
    const reconciler = startReconciler({
      outbox: createOutbox(outboxStore),
      knex: h.knex,
      gateway: h.gateway,
      log: pino({ level: 'silent' }),
      everyMs: 3_600_000,
      redeliverEveryMs: 3_600_000,
      graceSeconds: 0,
    });
    try {
      const outcomes = await Promise.all([h.gateway.launch(view), h.gateway.launch(view), reconciler.runOnce(), h.gateway.launch(view)]);
      expect(outcomes.filter((o) => o === 'started').length).toBeLessThanOrEqual(1);
    } finally {
      await reconciler.stop();
    }
    await finished(row.job_id);
    const run = await closedRun(row.job_id);
    await reconciler.runOnce();
    expect(await closedRun(row.job_id)).toEqual(run);
    expect(dispatches.get(row.job_id)).toBe(1);
    expect(await eventually(async () => (await runs(row.job_id)) || undefined, 10000, 'visibility')).toBe(1);
  });

  it('fires a cascade once when the outcome step and the cascade start are run again after the cascade job finished', async () => {
    const source = await activeModel(h, { handlers: COUNT_HANDLERS });
    const target = await activeModel(h, { handlers: COUNT_HANDLERS });
    const sub = await h.api('POST', `/v2/models/${source}/event-subscriptions`, {
      body: {
        trigger_event: 'inference_complete',
        target_model_id: target,
        target_action: 'inference',
        input_source: 'stored',
        input: { k: 1 },
        label: 'once',
      },
    });
    expect(sub.status).toBe(201);
    const sourceJob = await inferDirect(source);
    const done = await finished(sourceJob);
    const cascadeJobId = done.completion_result!.triggered_events[0].job_id!;
    await finished(cascadeJobId);
    const run = await closedRun(cascadeJobId);

    // The local activity re-run after its commit (a worker lost before its workflow task completed), then the start.
    const runsOfJobs = createJobRuns({
      outbox: createOutbox(outboxStore),
      knex: h.knex,
      schemas: new UserSchemaCompiler(),
      gateway: h.gateway,
      log: pino({ level: 'silent' }),
      maxCascadeDepth: 5,
      secrets: testSecretBox,
    });
    const again = await runsOfJobs.finish(sourceJob, { status: 'success', output: { seen: true } });
    expect(again).toEqual({ status: 'success', result: done.completion_result, launch: [cascadeJobId] });
    await runsOfJobs.launchJobs(again.launch);
    // The same for a run that started before the one-step outcome: its retried fireSubscription activity.
    const fired = await fireSubscription(
      { knex: h.knex, schemas: new UserSchemaCompiler(), gateway: h.gateway, maxCascadeDepth: 5 },
      { sourceJobId: sourceJob, subscriptionId: sub.body.subscription_id, triggerOutput: { seen: true } },
    );
    expect(fired.job_id).toBe(cascadeJobId);
    expect(await closedRun(cascadeJobId)).toEqual(run);
    expect(dispatches.get(cascadeJobId)).toBe(1);
    expect(await h.knex('model_jobs').where({ source_job_id: sourceJob }).select('job_id')).toEqual([{ job_id: cascadeJobId }]);
    expect(await eventually(async () => (await runs(cascadeJobId)) || undefined, 10000, 'visibility')).toBe(1);
  });

  it('does nothing in a second run of a job under another workflow id', async () => {
    const modelId = await activeModel(h, { handlers: COUNT_HANDLERS });
    const jobId = await inferDirect(modelId);
    const first = await finished(jobId);
    // E.g. a start after the first run's history left retention: the job row, not Temporal, says who owns it.
    const result = await h.temporal.workflow.execute('modelJobWorkflow', {
      workflowId: `duplicate-${jobId}`,
      taskQueue: h.config.temporal.taskQueue,
      args: [{ jobId, completionDeadlineSeconds: 60 }],
    });
    expect(result).toEqual(first.completion_result);
    expect(dispatches.get(jobId)).toBe(1);
  });
});

describe('a worker killed mid-dispatch', () => {
  let h: Harness;
  let lambda: AwsStandIn;
  let child: ChildProcess | undefined;
  let releaseFirst: () => void = () => {};

  beforeAll(async () => {
    let held = false;
    lambda = await AwsStandIn.start(async () => {
      if (!held) {
        held = true;
        // The first invoke never gets its answer back to the worker: the test kills the worker meanwhile.
        await new Promise<void>((r) => (releaseFirst = r));
      }
      return { status: 202 };
    });
    h = await Harness.start({ worker: false, lambda: new LambdaClient({ ...TEST_AWS, endpoint: lambda.url }) });
  });
  afterAll(async () => {
    if (child) await killHard(child);
    releaseFirst();
    await h.stop();
    await lambda.stop();
  });

  it('re-dispatches the Lambda job once (at-least-once, same job id) and finishes within 30 s of a new worker', async () => {
    child = await spawnWorkerProcess({
      DATABASE_URL: testEnv.databaseUrl,
      TEMPORAL_ADDRESS: testEnv.temporalAddress,
      TEMPORAL_TASK_QUEUE: h.config.temporal.taskQueue,
      PUBLIC_BASE_URL: h.baseUrl,
      AWS_ENDPOINT_URL_LAMBDA: lambda.url,
      AWS_REGION: TEST_AWS.region,
      AWS_ACCESS_KEY_ID: TEST_AWS.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: TEST_AWS.credentials.secretAccessKey,
    });
    const fn = `arn:aws:lambda:eu-west-1:123456789012:function:${uid('fn')}`;
    const modelId = await activeModel(h, { handlers: { training: { type: 'lambda', arn: fn }, inference: { type: 'lambda', arn: fn } } });
    const started = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } });
    expect(started.status).toBe(202);
    const jobId = started.body.job_id;
    const invokesOf = () => lambda.requests.filter((r) => r.body.includes(jobId));
    await eventually(async () => invokesOf().length === 1, 30000, 'the first invoke');

    await killHard(child);
    child = undefined;
    await h.startWorker();
    const available = Date.now();

    await eventually(async () => invokesOf().length === 2, 30000, 'the retried invoke');
    const done = await h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${jobId}/complete`, {
      body: { status: 'success', output: {} },
    });
    expect(done.status).toBe(200);
    const job = await jobsRepo.findJob(h.knex, jobId);
    expect(job?.status).toBe('success');
    expect(Date.now() - available).toBeLessThan(30000);
    // Both invokes carry the same job id, so a handler deduplicates by it; no third one came.
    expect(invokesOf().map((r) => JSON.parse(r.body).job_id)).toEqual([jobId, jobId]);
    let n = 0;
    for await (const _ of h.temporal.workflow.list({ query: `WorkflowId = "${workflowIdFor(jobId)}"` })) n++;
    expect(n).toBeLessThanOrEqual(1);
  });
});
