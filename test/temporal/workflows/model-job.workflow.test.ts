import path from 'node:path';
import { ApplicationFailure, CancelledFailure, WorkflowNotFoundError } from '@temporalio/common';
import { WorkflowFailedError, WorkflowUpdateFailedError } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { Activities } from '../../../activities';
import { completeJobUpdate, COMPLETION_CONFLICT, CompletionReport, CompletionResult } from '../../../workflows/definitions';
import { JOB_SEARCH_ATTRIBUTES } from '../../../workflows/search-attributes';
import { testEnv } from '../../helpers/test-env';
import { recordHistory } from '../../helpers/histories';
import { mockActivities as mockTyped, type ActivityMocks } from '../../helpers/activity-mocks';

/**
 * The job workflow alone: a local Temporal dev server (the CLI binary), activities mocked, deadlines of a fraction
 * of a second. RECORD_HISTORIES=1 writes the histories replayed by replay.test.ts (`npm run histories:record`).
 */
const CLI = path.resolve(__dirname, '../../../.tools/bin/temporal');

type Mocks = ActivityMocks<Activities>;

const DEFAULTS: Activities = {
  ping: async () => 'pong',
  startJob: async () => ({ owned: true }),
  dispatchJob: async () => ({ kind: 'awaiting' }),
  recordCompletion: async (jobId, report) => ({
    status: report ? report.status : 'timed_out',
    triggerEvent: report?.status === 'success' ? 'inference_complete' : null,
    base: { job_id: jobId, model_id: 'm', model_version: '1', status: report?.status ?? 'failure' },
  }),
  triggeredSubscriptions: async () => [],
  fireSubscription: async ({ subscriptionId }) => ({ job_id: `cascade-of-${subscriptionId}` }),
  storeCompletionResult: async () => undefined,
  cancelJob: async () => undefined,
  finishJob: async (jobId, report) => ({
    status: report ? report.status : 'timed_out',
    result: { job_id: jobId, model_id: 'm', model_version: '1', status: report?.status ?? 'failure', triggered_events: [] },
    launch: [],
  }),
  launchJobs: async () => undefined,
};

const mockActivities = (overrides: Partial<Activities> = {}): Mocks => mockTyped(DEFAULTS, overrides);

/**
 * An update refused because its workflow has closed: before it was admitted ("already completed") or while it waited
 * ("aborted by closing workflow"). The SDK raises WorkflowNotFoundError for an id it cannot find too, so the message
 * is what tells a closed workflow from a wrong id.
 */
function expectRefusedAsClosed(err: unknown) {
  expect(err).toBeInstanceOf(WorkflowNotFoundError);
  expect((err as Error).message).toMatch(/workflow execution already completed|workflow update was aborted by closing workflow/);
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
    await recordHistory(env.client, workflowId, name);
    return value;
  }

  function start(taskQueue: string, jobId: string, completionDeadlineSeconds = 30) {
    return env.client.workflow.start('modelJobWorkflow', {
      workflowId: `job-${jobId}`,
      taskQueue,
      args: [{ jobId, completionDeadlineSeconds }],
    });
  }

  it('answers the completion from the one-step outcome, then starts the cascade jobs it created', async () => {
    let launched!: () => void;
    const launchHeld = new Promise<void>((r) => (launched = r));
    const activities = mockActivities({
      finishJob: async (jobId: string, report: CompletionReport) => ({
        status: report.status,
        result: {
          job_id: jobId,
          model_id: 'm',
          model_version: '1',
          status: report.status,
          triggered_events: [
            { subscription_id: 'sub-1', job_id: 'cascade-1' },
            { subscription_id: 'sub-2', error: 'subscription is stale' },
            { subscription_id: 'sub-3', job_id: 'cascade-3' },
          ],
        },
        launch: ['cascade-1', 'cascade-3'],
      }),
      // Held until the completion has its answer: the answer does not wait for the cascades' starts.
      launchJobs: () => launchHeld,
    });
    const { answer, result } = await withWorker('cascading-job', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-cascade');
      const answer = await handle.executeUpdate(completeJobUpdate, { args: [{ status: 'success', output: { path: 's3://out' } }] });
      launched();
      return { workflowId: handle.workflowId, value: { answer, result: (await handle.result()) as CompletionResult } };
    });
    expect(answer).toEqual(result);
    expect(result.triggered_events).toEqual([
      { subscription_id: 'sub-1', job_id: 'cascade-1' },
      { subscription_id: 'sub-2', error: 'subscription is stale' },
      { subscription_id: 'sub-3', job_id: 'cascade-3' },
    ]);
    expect(activities.finishJob).toHaveBeenCalledTimes(1);
    // Reported by update: the outcome step marks it unconfirmed until Temporal answers the update (docs/temporal.md).
    expect(activities.finishJob).toHaveBeenCalledWith('wf-cascade', { status: 'success', output: { path: 's3://out' } }, 'update');
    expect(activities.launchJobs).toHaveBeenCalledWith(['cascade-1', 'cascade-3']);
    expect(activities.recordCompletion).not.toHaveBeenCalled();
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
    // A result of the dispatch activity is in the history already: nothing to confirm.
    expect(activities.finishJob).toHaveBeenCalledWith('wf-inproc', { status: 'success', output: { sum: 3 } }, 'dispatch');
  });

  it('times out at the deadline and closes, refusing a completion that arrives while the time-out is recorded', async () => {
    let recording!: () => void;
    const recordingStarted = new Promise<void>((r) => (recording = r));
    const activities = mockActivities({
      // Holds the recording open so the late report reaches the workflow while it records the time-out.
      finishJob: async (jobId: string) => {
        recording();
        await new Promise((r) => setTimeout(r, 500));
        return {
          status: 'timed_out',
          result: { job_id: jobId, model_id: 'm', model_version: '1', status: 'failure', triggered_events: [] },
          launch: [],
        };
      },
    });
    const late = await withWorker('timed-out-job', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-deadline', 0.2);
      await recordingStarted;
      const late = await handle.executeUpdate(completeJobUpdate, { args: [{ status: 'success' }] }).catch((err) => err);
      await handle.result();
      return { workflowId: handle.workflowId, value: late };
    });
    expect(activities.finishJob).toHaveBeenCalledTimes(1);
    expect(activities.finishJob).toHaveBeenCalledWith('wf-deadline', null, 'dispatch');
    // The workflow closes in the task that recorded the time-out; a report held meanwhile is refused as closed, and
    // the API answers it from the job's record (a 409: the job already timed out).
    expectRefusedAsClosed(late);
    expect(activities.launchJobs).not.toHaveBeenCalled();
  });

  it('answers a repeat with the first answer and a conflicting report with CompletionConflict while it starts cascades', async () => {
    let launched!: () => void;
    const launchHeld = new Promise<void>((r) => (launched = r));
    const activities = mockActivities({
      finishJob: async (jobId: string, report: CompletionReport) => ({
        status: report.status,
        result: {
          job_id: jobId,
          model_id: 'm',
          model_version: '1',
          status: report.status,
          triggered_events: [{ subscription_id: 's', job_id: 'c' }],
        },
        launch: ['c'],
      }),
      // The workflow stays open while it starts the cascade jobs: later reports reach it there.
      launchJobs: () => launchHeld,
    });
    const { first, repeat, conflict } = await withWorker('repeated-completion', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-repeat');
      const first = await handle.executeUpdate(completeJobUpdate, { args: [{ status: 'success', output: { a: 1 } }] });
      const [repeat, conflict] = await Promise.all([
        handle.executeUpdate(completeJobUpdate, { args: [{ status: 'success', output: { a: 1 } }] }),
        handle.executeUpdate(completeJobUpdate, { args: [{ status: 'failure' }] }).catch((err) => err),
      ]);
      launched();
      await handle.result();
      return { workflowId: handle.workflowId, value: { first, repeat, conflict } };
    });
    expect(repeat).toEqual(first);
    expect(first.status).toBe('success');
    expect(conflict).toBeInstanceOf(WorkflowUpdateFailedError);
    expect((conflict as WorkflowUpdateFailedError).cause).toMatchObject({
      type: COMPLETION_CONFLICT,
      message: 'the job was already reported success',
    });
    expect(activities.finishJob).toHaveBeenCalledTimes(1);
  });

  it('records once and closes, refusing as closed the reports that arrive while it records', async () => {
    let recording!: () => void;
    const recordingStarted = new Promise<void>((r) => (recording = r));
    const activities = mockActivities({
      // Holds the recording open so a repeat and a conflicting report arrive while it records.
      finishJob: async (jobId: string, report: CompletionReport) => {
        recording();
        await new Promise((r) => setTimeout(r, 500));
        return {
          status: report.status,
          result: { job_id: jobId, model_id: 'm', model_version: '1', status: report.status, triggered_events: [] },
          launch: [],
        };
      },
    });
    const { first, others } = await withWorker('completion-while-recording', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-while-recording');
      const first = handle.executeUpdate(completeJobUpdate, { args: [{ status: 'failure', error: { code: 'x' } }] });
      await recordingStarted;
      const others = await Promise.all([
        handle.executeUpdate(completeJobUpdate, { args: [{ status: 'failure', error: { code: 'x' } }] }).catch((err) => err),
        handle.executeUpdate(completeJobUpdate, { args: [{ status: 'success' }] }).catch((err) => err),
      ]);
      return { workflowId: handle.workflowId, value: { first: await first, others } };
    });
    expect(first.status).toBe('failure');
    // Both reach a workflow that closed with the recorded answer; the API answers them from the job's record.
    for (const other of others) expectRefusedAsClosed(other);
    expect(activities.finishJob).toHaveBeenCalledTimes(1);
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
    expect(activities.finishJob).toHaveBeenCalledWith(
      'wf-refused',
      { status: 'failure', error: { message: 'dispatch failed: function not found' } },
      'dispatch',
    );
  });

  it('records the job failed, naming why, when its outcome step fails for good', async () => {
    const activities = mockActivities({
      dispatchJob: async () => ({ kind: 'completed', report: { status: 'success', output: { a: 1 } } }),
      finishJob: jest
        .fn()
        .mockRejectedValueOnce(ApplicationFailure.create({ message: 'jsonb refused the output (after 5 attempts)', nonRetryable: true }))
        .mockImplementation((jobId: string, report: CompletionReport | null) => DEFAULTS.finishJob(jobId, report)),
    });
    const result = await withWorker('outcome-step-failed', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-unrecorded');
      // Caught so the history is recorded either way: runs before the patch failed here, and replay them (replay.test.ts).
      return { workflowId: handle.workflowId, value: (await handle.result().catch((err: unknown) => err)) as CompletionResult };
    });
    expect(result.status).toBe('failure');
    expect(activities.finishJob).toHaveBeenCalledTimes(2);
    expect(activities.finishJob).toHaveBeenLastCalledWith(
      'wf-unrecorded',
      {
        status: 'failure',
        error: {
          message: 'the outcome could not be recorded as reported: jsonb refused the output (after 5 attempts)',
          reason: 'output_unstorable',
        },
      },
      'dispatch',
    );
  });

  it('closes as cancelled when cancelled while awaiting the report: records the cancel, refuses a later report, fires nothing', async () => {
    const activities = mockActivities();
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
    expect(activities.finishJob).not.toHaveBeenCalled();
    expect(activities.launchJobs).not.toHaveBeenCalled();
    expectRefusedAsClosed(late);
  });

  it('refuses a report that waited for its answer when the cancellation wins the recording', async () => {
    const activities = mockActivities({
      finishJob: async (jobId: string) => ({
        status: 'cancelled',
        result: { job_id: jobId, model_id: 'm', model_version: '1', status: 'failure', triggered_events: [] },
        launch: [],
      }),
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
    expect(activities.launchJobs).not.toHaveBeenCalled();
  });

  it('retries the start of the cascade jobs until it goes through, with the answer already given', async () => {
    let attempts = 0;
    const activities = mockActivities({
      finishJob: async (jobId: string) => ({
        status: 'success',
        result: {
          job_id: jobId,
          model_id: 'm',
          model_version: '1',
          status: 'success',
          triggered_events: [{ subscription_id: 's', job_id: 'c' }],
        },
        launch: ['c'],
      }),
      launchJobs: async () => {
        if (++attempts === 1) throw new Error('Temporal is unavailable');
      },
    });
    const { answer, result } = await withWorker('cascade-start-retried', activities, async (taskQueue) => {
      const handle = await start(taskQueue, 'wf-launch-retry');
      const answer = await handle.executeUpdate(completeJobUpdate, { args: [{ status: 'success' }] });
      return { workflowId: handle.workflowId, value: { answer, result: (await handle.result()) as CompletionResult } };
    });
    expect(answer.triggered_events).toEqual([{ subscription_id: 's', job_id: 'c' }]);
    expect(result).toEqual(answer);
    expect(activities.launchJobs).toHaveBeenCalledTimes(2);
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
    expect(activities.finishJob).not.toHaveBeenCalled();
  });
});
