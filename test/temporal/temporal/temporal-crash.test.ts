import pino from 'pino';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { Harness } from '../../helpers/harness';
import { activeModel, eventually } from '../../helpers/fixtures';
import { startOwnTemporal, ownDatabase, type CrashableTemporal } from '../../helpers/own-temporal';
import { startReconciler } from '../../../src/domain/jobs/launch/reconciler';
import { workflowIdFor } from '../../../src/domain/ports/job-gateway.port';
import { findJob } from '../../../src/db/jobs.repository';
import { JOB_STATUS } from '../../../workflows/search-attributes';
import { jobStateQuery } from '../../../workflows/definitions';
import { createOutbox } from '../../../src/domain/webhooks';
import { outboxStore } from '../../../src/db/outbox.repository';

const MANUAL = { training: { type: 'in_process', name: 'manual' }, inference: { type: 'in_process', name: 'manual' } };
/**
 * docs/temporal.md, "Completions Temporal lost": the workflow has the recorded outcome within 15 s of Temporal being
 * back (the outcome is delivered again once it is 10 s old, by a pass every 5 s), plus a workflow task and the clients'
 * reconnection (20 s here), with room for a loaded machine.
 */
const BOUND_MS = 20000 + 10000;

/** Holds the next outcome step once it has committed, until released: the instant before its workflow task reaches Temporal. */
function holdAfterCommit() {
  let armed = false;
  let signalCommitted = () => {};
  let released: Promise<void> = Promise.resolve();
  const hold = {
    committed: Promise.resolve(),
    release: () => {},
    /** Holds the next outcome step; `committed` resolves once it has committed, and it returns on `release()`. */
    arm() {
      armed = true;
      hold.committed = new Promise<void>((r) => (signalCommitted = r));
      released = new Promise<void>((r) => (hold.release = r));
    },
    interceptor: ((ctx) => ({
      inbound: {
        async execute(input, next) {
          const result = await next(input);
          if (armed && ctx.info.activityType === 'finishJob') {
            armed = false;
            signalCommitted();
            await released;
          }
          return result;
        },
      },
    })) as ActivityInterceptorsFactory,
  };
  return hold;
}

async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The completion's update lives in the server's memory until the workflow task that took it is persisted; the outcome
 * step commits to Postgres inside that task. The server is SIGKILLed between the two (the step held after its commit),
 * so the update is lost while the record stands and the route answers 200 from it. This file runs its own Temporal
 * server (of the suite's kind) and database: killing the shared one would break the files beside it.
 */
describe('a completion answered while the Temporal server dies', () => {
  let temporal: CrashableTemporal;
  let db: { url: string; drop(): Promise<void> };
  let h: Harness;
  let reconciler: ReturnType<typeof startReconciler> | undefined;
  const hold = holdAfterCommit();

  beforeAll(async () => {
    temporal = await startOwnTemporal();
    db = await ownDatabase();
    h = await Harness.start({
      worker: true,
      databaseUrl: db.url,
      temporalAddress: temporal.address,
      env: { TEMPORAL_ADDRESS: temporal.address },
      activityInterceptors: [hold.interceptor],
    });
  }, 180000);
  afterAll(async () => {
    await reconciler?.stop();
    hold.release();
    await h?.stop();
    await temporal?.stop();
    await db?.drop();
  }, 60000);

  /**
   * A job of the `manual` handler, waiting for its report, then its completion, held in its outcome step just after the
   * commit. The workflow is idle when the update comes, so Temporal hands it over in a workflow task kept in memory
   * only (a speculative one): a crash loses both, however soon the worker retries completing the task.
   */
  async function completeHeld(modelId: string, report: Record<string, unknown>) {
    const jobId: string = (await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } })).body.job_id;
    await eventually(async () => (await findJob(h.knex, jobId))?.status === 'running', 60000, 'the job to be dispatched');
    const phase = async () => (await h.temporal.workflow.getHandle(workflowIdFor(jobId)).query(jobStateQuery)).phase;
    await eventually(async () => (await phase()) === 'awaiting_completion', 60000, 'the workflow to wait for the report');
    hold.arm();
    const answer = h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${jobId}/complete`, { body: report });
    await hold.committed;
    return { jobId, answer };
  }

  // The first jobs on a server just started can wait a while for it on a loaded machine: waits are generous.
  it('marks an outcome reported by update unconfirmed in its commit and confirms it when Temporal answers; a dispatch result is not marked', async () => {
    const source = await activeModel(h, { handlers: MANUAL });
    const echoed = await activeModel(h);
    const { jobId, answer } = await completeHeld(source, { status: 'failure', error: { at: 1 } });
    expect(await h.knex('unconfirmed_outcomes').where({ job_id: jobId }).pluck('job_id')).toEqual([jobId]);
    hold.release();
    expect((await answer).status).toBe(200);
    expect(await h.knex('unconfirmed_outcomes').where({ job_id: jobId })).toEqual([]);

    const echoJob = (await h.api('POST', `/v2/models/${echoed}/versions/1/infer`, { body: { input: {} } })).body.job_id;
    await eventually(async () => (await findJob(h.knex, echoJob))?.status === 'success', 60000, 'the echo job to finish');
    expect(await h.knex('unconfirmed_outcomes').where({ job_id: echoJob })).toEqual([]);
  }, 180000);

  it('reaches its workflow once the server is back: it closes with the recorded answer, JobStatus follows, and it starts the cascade', async () => {
    const source = await activeModel(h, { handlers: MANUAL });
    const target = await activeModel(h);
    const sub = await h.api('POST', `/v2/models/${source}/event-subscriptions`, {
      body: { trigger_event: 'inference_complete', target_model_id: target, target_action: 'inference', input_source: 'trigger_output' },
    });
    expect(sub.status).toBe(201);
    const { jobId, answer } = await completeHeld(source, { status: 'success', output: { score: 7 } });
    await temporal.crash();
    hold.release();
    // What the handler saw in the attack run: 200, from the record, for an update Temporal never kept.
    const answered = await answer;
    const recorded = (await findJob(h.knex, jobId))!;
    expect(answered.status).toBe(200);
    expect(recorded.status).toBe('success');
    expect(answered.body).toEqual(recorded.completion_result);
    const cascadeJobId = recorded.completion_result!.triggered_events[0].job_id!;

    await temporal.restart();
    const back = Date.now();
    const handle = h.temporal.workflow.getHandle(workflowIdFor(jobId));
    // The disagreement of the attack run: the record says success, the workflow still waits for its report.
    expect(await handle.query(jobStateQuery)).toEqual({ phase: 'awaiting_completion' });
    expect((await handle.describe()).typedSearchAttributes.get(JOB_STATUS)).toBe('running');
    reconciler = startReconciler({ outbox: createOutbox(outboxStore), knex: h.knex, gateway: h.gateway, log: pino({ level: 'silent' }) });
    expect(await within(BOUND_MS, 'the workflow to close after the restart', handle.result())).toEqual(recorded.completion_result);
    const closedAfterMs = Date.now() - back;
    expect((await handle.describe()).typedSearchAttributes.get(JOB_STATUS)).toBe('success');
    // The cascade was started by the workflow's own step, not left to the reconciler's pass over pending rows.
    const history = await handle.fetchHistory();
    const steps = history.events!.map((e) => e.activityTaskScheduledEventAttributes?.activityType?.name).filter(Boolean);
    expect(steps).toContain('launchJobs');
    await h.temporal.workflow.getHandle(workflowIdFor(cascadeJobId)).describe();
    await eventually(async () => (await findJob(h.knex, cascadeJobId))?.status === 'success', 60000, 'the cascade job to finish');
    // The reconciler confirms the outcome once its delivery is answered.
    await eventually(async () => (await h.knex('unconfirmed_outcomes').where({ job_id: jobId })).length === 0, 10000, 'the confirmation');
    console.log(`[temporal-crash] workflow closed ${closedAfterMs} ms after the Temporal server was back`);
  }, 240000);
});
