import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { WorkflowFailedError, WorkflowUpdateFailedError, WorkflowUpdateStage } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Activities } from '../../activities';
import { completeJobUpdate, COMPLETION_CONFLICT, CompletionReport, CompletionResult } from '../../workflows/definitions';
import { JOB_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';
import { testEnv } from '../helpers/test-env';

/**
 * The job workflow alone: a local Temporal dev server (the CLI binary), activities mocked, deadlines of a fraction
 * of a second. RECORD_HISTORIES=1 writes the histories replayed by replay.test.ts (`npm run histories:record`).
 */
const CLI = path.resolve(__dirname, '../../.tools/bin/temporal');
const HISTORIES = path.join(__dirname, 'histories');

type Mocks = { [K in keyof Activities]: jest.Mock };

function mockActivities(overrides: Partial<Record<keyof Activities, (...args: any[]) => Promise<unknown>>> = {}): Mocks {
  const defaults: Record<keyof Activities, (...args: any[]) => Promise<unknown>> = {
    ping: async () => 'pong',
    startJob: async () => ({ owned: true }),
    dispatchJob: async () => ({ kind: 'awaiting' }),
    recordCompletion: async (jobId: string, report: CompletionReport | null) => ({
      status: report ? report.status : 'timed_out',
      triggerEvent: report?.status === 'success' ? 'inference_complete' : null,
      base: { job_id: jobId, model_id: 'm', model_version: '1', status: report?.status ?? 'failure' },
    }),
    triggeredSubscriptions: async () => [],
    fireSubscription: async ({ subscriptionId }: { subscriptionId: string }) => ({ job_id: `cascade-of-${subscriptionId}` }),
    storeCompletionResult: async () => undefined,
    cancelJob: async () => undefined,
  };
  return Object.fromEntries(Object.entries({ ...defaults, ...overrides }).map(([name, fn]) => [name, jest.fn(fn)])) as unknown as Mocks;
}

describe('modelJobWorkflow', () => {
  let env: TestWorkflowEnvironment;
  let queue = 0;

  beforeAll(async () => {
    env = await TestWorkflowEnvironment.createLocal({
      server: {
        executable: { type: 'existing-path', path: CLI },
        ui: false,
        searchAttributes: JOB_SEARCH_ATTRIBUTES,
        log: { format: 'json', level: 'error' },
      },
    });
  });
  afterAll(() => env?.teardown());

  /** Runs `body` against a worker with these activities; returns what it returns and the workflow's history. */
  async function withWorker<T>(name: string, activities: Mocks, body: (taskQueue: string) => Promise<{ workflowId: string; value: T }>) {
    const taskQueue = `wf-test-${process.pid}-${++queue}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: testEnv.workflowBundlePath },
      activities,
    });
    const { workflowId, value } = await worker.runUntil(body(taskQueue));
    if (process.env.RECORD_HISTORIES) {
      const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
      mkdirSync(HISTORIES, { recursive: true });
      writeFileSync(path.join(HISTORIES, `${name}.json`), historyToJSON(history));
    }
    return value;
  }

  function start(taskQueue: string, jobId: string, completionDeadlineSeconds = 30) {
    return env.client.workflow.start('modelJobWorkflow', {
      workflowId: `job-${jobId}`,
      taskQueue,
      args: [{ jobId, completionDeadlineSeconds }],
    });
  }

  it('completes through the update: records the report, fires subscriptions, answers with the result', async () => {
    const activities = mockActivities({ triggeredSubscriptions: async () => ['sub-1', 'sub-2'] });
    const { answer, result } = await withWorker('cascading-job', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-cascade');
      const answer = await handle.executeUpdate(completeJobUpdate, { args: [{ status: 'success', output: { path: 's3://out' } }] });
      return { workflowId: handle.workflowId, value: { answer, result: (await handle.result()) as CompletionResult } };
    });
    expect(answer).toEqual(result);
    expect(result.triggered_events).toEqual([
      { subscription_id: 'sub-1', job_id: 'cascade-of-sub-1' },
      { subscription_id: 'sub-2', job_id: 'cascade-of-sub-2' },
    ]);
    expect(activities.recordCompletion).toHaveBeenCalledWith('wf-cascade', { status: 'success', output: { path: 's3://out' } });
    expect(activities.fireSubscription).toHaveBeenCalledWith({
      sourceJobId: 'wf-cascade',
      subscriptionId: 'sub-1',
      triggerOutput: { path: 's3://out' },
    });
    expect(activities.storeCompletionResult).toHaveBeenCalledWith('wf-cascade', result);
  });

  it('takes the in-process result of the dispatch as the report', async () => {
    const activities = mockActivities({
      dispatchJob: async () => ({ kind: 'completed', report: { status: 'success', output: { sum: 3 } } }),
    });
    const result = await withWorker('successful-job', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-inproc');
      return { workflowId: handle.workflowId, value: (await handle.result()) as CompletionResult };
    });
    expect(result).toEqual({ job_id: 'wf-inproc', model_id: 'm', model_version: '1', status: 'success', triggered_events: [] });
  });

  it('times out at the deadline and refuses a completion that arrives after it', async () => {
    let release!: () => void;
    let recording!: () => void;
    const recordingStarted = new Promise<void>((r) => (recording = r));
    const activities = mockActivities({
      recordCompletion: async (jobId: string) => {
        recording();
        await new Promise<void>((r) => (release = r));
        return { status: 'timed_out', triggerEvent: null, base: { job_id: jobId, model_id: 'm', model_version: '1', status: 'failure' } };
      },
    });
    const late = await withWorker('timed-out-job', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-deadline', 0.2);
      await recordingStarted;
      const late = await handle.executeUpdate(completeJobUpdate, { args: [{ status: 'success' }] }).catch((err) => err);
      release();
      await handle.result();
      return { workflowId: handle.workflowId, value: late };
    });
    expect(activities.recordCompletion).toHaveBeenCalledWith('wf-deadline', null);
    expect(late).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((late as WorkflowUpdateFailedError).cause).toMatchObject({ type: COMPLETION_CONFLICT, message: 'the job already timed out' });
    expect(activities.fireSubscription).not.toHaveBeenCalled();
  });

  it('answers a repeated completion with the first answer and a conflicting one with CompletionConflict', async () => {
    const activities = mockActivities({
      // Holds the recording open so both reports reach the running workflow.
      recordCompletion: async (jobId: string, report: CompletionReport) => {
        await new Promise((r) => setTimeout(r, 300));
        return {
          status: report.status,
          triggerEvent: null,
          base: { job_id: jobId, model_id: 'm', model_version: '1', status: report.status },
        };
      },
    });
    const { first, repeat, conflict } = await withWorker('repeated-completion', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-repeat');
      const accepted = await handle.startUpdate(completeJobUpdate, {
        args: [{ status: 'failure', error: { code: 'x' } }],
        waitForStage: WorkflowUpdateStage.ACCEPTED,
      });
      const [first, repeat, conflict] = await Promise.all([
        accepted.result(),
        handle.executeUpdate(completeJobUpdate, { args: [{ status: 'failure', error: { code: 'x' } }] }),
        handle.executeUpdate(completeJobUpdate, { args: [{ status: 'success' }] }).catch((err) => err),
      ]);
      return { workflowId: handle.workflowId, value: { first, repeat, conflict } };
    });
    expect(repeat).toEqual(first);
    expect(first.status).toBe('failure');
    expect(conflict).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((conflict as WorkflowUpdateFailedError).cause).toMatchObject({ type: COMPLETION_CONFLICT });
    expect(activities.recordCompletion).toHaveBeenCalledTimes(1);
  });

  it('records a failure when the dispatch is refused', async () => {
    const activities = mockActivities({
      dispatchJob: async () => {
        throw ApplicationFailure.create({ message: 'function not found', nonRetryable: true });
      },
    });
    const result = await withWorker('dispatch-refused', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-refused');
      return { workflowId: handle.workflowId, value: (await handle.result()) as CompletionResult };
    });
    expect(result.status).toBe('failure');
    expect(activities.recordCompletion).toHaveBeenCalledWith('wf-refused', {
      status: 'failure',
      error: { message: 'dispatch failed: function not found' },
    });
  });

  it('closes as cancelled when cancelled while awaiting the report: records the cancel, refuses a later report, fires nothing', async () => {
    const activities = mockActivities({ triggeredSubscriptions: async () => ['sub-1'] });
    const { outcome, late } = await withWorker('cancelled-job', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-cancel');
      // The workflow is waiting for the report once the dispatch has run.
      for (let i = 0; i < 100 && activities.dispatchJob.mock.calls.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
      await handle.cancel();
      const outcome = await handle.result().catch((err) => err);
      const late = await handle.executeUpdate(completeJobUpdate, { args: [{ status: 'success' }] }).catch((err) => err);
      return { workflowId: handle.workflowId, value: { outcome, late } };
    });
    expect(outcome).toBeInstanceOf(WorkflowFailedError);
    expect((outcome as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(activities.cancelJob).toHaveBeenCalledWith('wf-cancel');
    expect(activities.recordCompletion).not.toHaveBeenCalled();
    expect(activities.fireSubscription).not.toHaveBeenCalled();
    expect(late).toBeInstanceOf(Error);
  });

  it('refuses a report that waited for its answer when the cancellation wins the recording', async () => {
    const activities = mockActivities({
      recordCompletion: async (jobId: string) => ({
        status: 'cancelled',
        triggerEvent: null,
        base: { job_id: jobId, model_id: 'm', model_version: '1', status: 'success' },
      }),
      triggeredSubscriptions: async () => ['sub-1'],
    });
    const answer = await withWorker('cancel-won-recording', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-cancel-race');
      const answer = await handle.executeUpdate(completeJobUpdate, { args: [{ status: 'success' }] }).catch((err) => err);
      await handle.result();
      return { workflowId: handle.workflowId, value: answer };
    });
    expect(answer).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((answer as WorkflowUpdateFailedError).cause).toMatchObject({ type: COMPLETION_CONFLICT, message: 'the job was cancelled' });
    expect(activities.cancelJob).toHaveBeenCalledWith('wf-cancel-race');
    expect(activities.fireSubscription).not.toHaveBeenCalled();
  });

  it('reports a cascade entry that cannot fire as an error and still fires the others', async () => {
    const activities = mockActivities({
      triggeredSubscriptions: async () => ['good', 'stale'],
      fireSubscription: async ({ subscriptionId }: { subscriptionId: string }) => {
        if (subscriptionId === 'stale')
          throw ApplicationFailure.create({ message: 'subscription is stale', type: 'CascadeRejected', nonRetryable: true });
        return { job_id: 'cascade-good' };
      },
    });
    const result = await withWorker('cascade-entry-failed', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-partial');
      await handle.executeUpdate(completeJobUpdate, { args: [{ status: 'success' }] });
      return { workflowId: handle.workflowId, value: (await handle.result()) as CompletionResult };
    });
    expect(result.triggered_events).toEqual([
      { subscription_id: 'good', job_id: 'cascade-good' },
      { subscription_id: 'stale', error: 'subscription is stale' },
    ]);
  });

  it('does nothing in a run that does not own its job', async () => {
    const recorded: CompletionResult = { job_id: 'wf-owned', model_id: 'm', model_version: '1', status: 'success', triggered_events: [] };
    const activities = mockActivities({ startJob: async () => ({ owned: false, result: recorded }) });
    const result = await withWorker('not-owner', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-owned');
      return { workflowId: handle.workflowId, value: await handle.result() };
    });
    expect(result).toEqual(recorded);
    expect(activities.dispatchJob).not.toHaveBeenCalled();
    expect(activities.recordCompletion).not.toHaveBeenCalled();
  });
});
