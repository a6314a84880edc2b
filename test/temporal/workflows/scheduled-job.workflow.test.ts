import path from 'node:path';
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { ScheduleActivities } from '../../../activities/schedules';
import { SCHEDULED_JOB_FAILED } from '../../../workflows/schedule-definitions';
import { JOB_SEARCH_ATTRIBUTES } from '../../../workflows/search-attributes';
import { testEnv } from '../../helpers/test-env';
import { recordHistory } from '../../helpers/histories';
import { mockActivities as mockTyped, type ActivityMocks } from '../../helpers/activity-mocks';

/**
 * The fire workflow alone, started by a real Temporal Schedule (which sets the nominal time it reads) on a local dev
 * server, activities mocked. RECORD_HISTORIES=1 writes the histories replayed by replay.test.ts.
 */
const CLI = path.resolve(__dirname, '../../../.tools/bin/temporal');

type Mocks = ActivityMocks<ScheduleActivities>;

const DEFAULTS: ScheduleActivities = {
  fireSchedule: async () => ({ outcome: 'started', jobId: 'job-1' }),
  awaitScheduledJob: async () => 'success',
  cancelScheduledJob: async () => undefined,
};

const mockActivities = (overrides: Partial<ScheduleActivities>): Mocks => mockTyped(DEFAULTS, overrides);

describe('scheduledJobWorkflow', () => {
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

  /** One fire of a paused schedule, triggered at once; `body` gets its handle. Returns what `body` returns. */
  async function fire<T>(name: string, activities: Mocks, body: (workflowId: string) => Promise<T>, pauseOnFailure = false): Promise<T> {
    const taskQueue = `fire-test-${process.pid}-${++queue}`;
    const scheduleId = `schedule-${taskQueue}`;
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: testEnv.workflowBundlePath },
      activities,
    });
    const handle = await env.client.schedule.create({
      scheduleId,
      spec: { cronExpressions: ['0 3 1 1 *'] },
      action: {
        type: 'startWorkflow',
        workflowType: 'scheduledJobWorkflow',
        workflowId: scheduleId,
        taskQueue,
        args: [{ scheduleId: taskQueue }],
      },
      policies: { pauseOnFailure },
      state: { paused: true, triggerImmediately: true },
    });
    const run = async () => {
      let workflowId: string | undefined;
      while (!workflowId) {
        workflowId = (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId;
        if (!workflowId) await new Promise((r) => setTimeout(r, 100));
      }
      const value = await body(workflowId);
      await recordHistory(env.client, workflowId, name);
      return value;
    };
    try {
      return await worker.runUntil(run());
    } finally {
      await handle.delete();
    }
  }

  it('starts the job with the nominal time Temporal set, waits until it is final, and answers its outcome', async () => {
    let waits = 0;
    const activities = mockActivities({ awaitScheduledJob: async () => (++waits < 2 ? null : 'success') });
    const result = await fire('scheduled-job-success', activities, (id) => env.client.workflow.getHandle(id).result());
    expect(result).toEqual({ outcome: 'started', jobId: 'job-1', status: 'success' });
    const [input] = activities.fireSchedule.mock.calls[0];
    expect(input.workflowId).toMatch(/^schedule-fire-test-.+-\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(input.workflowId.endsWith(new Date(input.nominalTime).toISOString().replace('.000Z', 'Z'))).toBe(true);
    expect(activities.awaitScheduledJob).toHaveBeenCalledTimes(2);
  });

  it('answers a skipped fire with its reason and waits for nothing', async () => {
    const activities = mockActivities({ fireSchedule: async () => ({ outcome: 'skipped', reason: 'client acme is suspended' }) });
    const result = await fire('scheduled-job-skipped', activities, (id) => env.client.workflow.getHandle(id).result());
    expect(result).toEqual({ outcome: 'skipped', reason: 'client acme is suspended' });
    expect(activities.awaitScheduledJob).not.toHaveBeenCalled();
  });

  it('fails when its job failed: the failure that pause-on-failure acts on', async () => {
    const activities = mockActivities({ awaitScheduledJob: async () => 'failure' });
    const err = await fire(
      'scheduled-job-failed',
      activities,
      (id) =>
        env.client.workflow
          .getHandle(id)
          .result()
          .then(
            () => undefined,
            (e: unknown) => e,
          ),
      true,
    );
    expect(err).toBeInstanceOf(WorkflowFailedError);
    expect((err as WorkflowFailedError).cause).toMatchObject({ type: SCHEDULED_JOB_FAILED, message: 'job job-1 ended failure' });
  });

  it('cancels its job when the fire is cancelled (overlap cancel_other)', async () => {
    const activities = mockActivities({
      awaitScheduledJob: async () => {
        const context = Context.current();
        for (;;) {
          context.heartbeat();
          await context.sleep(100);
        }
      },
    });
    await fire('scheduled-job-cancelled', activities, async (id) => {
      const handle = env.client.workflow.getHandle(id);
      while (activities.awaitScheduledJob.mock.calls.length === 0) await new Promise((r) => setTimeout(r, 50));
      await handle.cancel();
      await handle.result().catch(() => undefined);
    });
    expect(activities.cancelScheduledJob).toHaveBeenCalledWith('job-1', expect.stringContaining('cancelled'));
  });
});
