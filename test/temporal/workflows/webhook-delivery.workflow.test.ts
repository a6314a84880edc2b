import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { WebhookActivities } from '../../../activities/webhooks';
import { WEBHOOK_QUEUE_WOKEN, WEBHOOK_TARGET_REFUSED, type WebhookQueueInput } from '../../../workflows/webhook-definitions';
import { testEnv } from '../../helpers/test-env';
import { recordHistory } from '../../helpers/histories';
import type { ActivityMocks } from '../../helpers/activity-mocks';

/** The webhook delivery workflow alone: a local Temporal dev server, its three activities mocked. */
const CLI = path.resolve(__dirname, '../../../.tools/bin/temporal');

type Mocks = ActivityMocks<WebhookActivities>;

const INPUT: WebhookQueueInput = {
  webhookId: 'wh-1',
  orderingKey: 'job-1',
  retry: { initialIntervalMs: 10, backoffCoefficient: 1, maximumIntervalSeconds: 1, giveUpAfterSeconds: 5 },
  attemptTimeoutSeconds: 1,
};

describe('webhookDeliveryWorkflow', () => {
  let env: TestWorkflowEnvironment;
  let queue = 0;

  beforeAll(async () => {
    env = await TestWorkflowEnvironment.createLocal({
      server: { executable: { type: 'existing-path', path: CLI }, ui: false, log: { format: 'json', level: 'error' } },
    });
  });
  afterAll(() => env?.teardown());

  /** Runs the workflow to its end against these activities; `queued` is what nextWebhookDelivery answers, in turn. */
  async function run(name: string, activities: (workflowId: string) => Mocks): Promise<{ handled: number; mocks: Mocks }> {
    const taskQueue = `wh-test-${process.pid}-${++queue}`;
    const workflowId = `webhook-test-${queue}`;
    const mocks = activities(workflowId);
    const worker = await Worker.create({
      connection: env.nativeConnection,
      taskQueue,
      workflowBundle: { codePath: testEnv.workflowBundlePath },
      activities: mocks,
    });
    const handle = await env.client.workflow.start('webhookDeliveryWorkflow', { workflowId, taskQueue, args: [INPUT] });
    // The result follows the runs a continue-as-new chains; the first run's history is the one recorded.
    const handled = await worker.runUntil(handle.result() as Promise<number>);
    await recordHistory(env.client, workflowId, `webhook-${name}`, handle.firstExecutionRunId);
    return { handled, mocks };
  }

  function mocks(
    next: (call: number) => Promise<string | null>,
    deliver: (id: string) => Promise<'delivered'> = async () => 'delivered',
  ): Mocks {
    let calls = 0;
    return {
      nextWebhookDelivery: jest.fn((_webhookId: string, _orderingKey: string) => next(++calls)),
      deliverWebhook: jest.fn((id: string) => deliver(id)),
      giveUpWebhookDelivery: jest.fn(async (_deliveryId: string, _reason: string) => undefined),
    };
  }

  it('delivers its queue in order and ends when the queue is empty', async () => {
    const queued = ['d-1', 'd-2'];
    const { handled, mocks: m } = await run('in-order', () => mocks(async () => queued.shift() ?? null));
    expect(handled).toBe(2);
    expect(m.deliverWebhook.mock.calls).toEqual([['d-1'], ['d-2']]);
  });

  it('reads its queue again when a launch woke it while it found the queue empty', async () => {
    // The race a redelivery meets: the run reads an empty queue, the delivery is queued and the launch signals the
    // open run, which would otherwise close and leave the delivery without a run.
    const { handled, mocks: m } = await run('woken', (workflowId) =>
      mocks(async (call) => {
        if (call === 1) {
          await env.client.workflow.getHandle(workflowId).signal(WEBHOOK_QUEUE_WOKEN);
          return null;
        }
        return call === 2 ? 'd-requeued' : null;
      }),
    );
    expect(handled).toBe(1);
    expect(m.deliverWebhook.mock.calls).toEqual([['d-requeued']]);
    expect(m.nextWebhookDelivery).toHaveBeenCalledTimes(3);
  });

  it('gives up a delivery whose target is refused and goes on with the next', async () => {
    const queued = ['d-refused', 'd-ok'];
    const { handled, mocks: m } = await run('target-refused', () =>
      mocks(
        async () => queued.shift() ?? null,
        async (id) => {
          if (id === 'd-refused')
            throw ApplicationFailure.create({ type: WEBHOOK_TARGET_REFUSED, message: 'target refused: loopback', nonRetryable: true });
          return 'delivered';
        },
      ),
    );
    expect(handled).toBe(2);
    expect(m.giveUpWebhookDelivery.mock.calls).toEqual([['d-refused', 'target refused: loopback']]);
    expect(m.deliverWebhook.mock.calls).toEqual([['d-refused'], ['d-ok']]);
  });

  it('continues as new after 100 deliveries and goes on with the queue in the next run', async () => {
    const queued = Array.from({ length: 101 }, (_, i) => `d-${i}`);
    const { handled, mocks: m } = await run('continued-as-new', () => mocks(async () => queued.shift() ?? null));
    // The result is the last run's: the one delivery left after the first run's 100.
    expect(handled).toBe(1);
    expect(m.deliverWebhook.mock.calls.map(([id]) => id)).toEqual(Array.from({ length: 101 }, (_, i) => `d-${i}`));
  });
});
