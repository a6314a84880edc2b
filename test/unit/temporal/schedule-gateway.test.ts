import { status } from '@grpc/grpc-js';
import { type Client, ScheduleNotFoundError, ServiceError } from '@temporalio/client';
import type { ScheduleDefinition } from '../../../src/domain/ports/schedule-gateway.port';
import { createScheduleGateway } from '../../../src/temporal/schedule-gateway';

/** A grpc failure as the schedule client wraps it. */
function failure(code: status): ServiceError {
  return new ServiceError('Failed to describe schedule', { cause: Object.assign(new Error(`${code}`), { code }) });
}

const description = { state: { paused: false, note: '' }, info: { nextActionTimes: [], runningActions: [], createdAt: new Date(0) } };

/** A client whose schedule handle answers each describe with the next of `answers`. */
function clientAnswering(answers: Array<Error | typeof description>) {
  const calls = { describe: 0, update: 0 };
  const next = async () => {
    const answer = answers[Math.min(calls.describe++, answers.length - 1)];
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const handle = {
    describe: next,
    update: async (fn: (previous: unknown) => unknown) => {
      fn(await next());
      calls.update++;
    },
  };
  const client = {
    withDeadline: <T>(_deadline: number, fn: () => Promise<T>) => fn(),
    schedule: { getHandle: () => handle },
  } as unknown as Client;
  return { gateway: createScheduleGateway({ client, taskQueue: 'q', namespace: 'default' }), calls };
}

const definition: ScheduleDefinition = {
  scheduleId: 's1',
  action: 'inference',
  spec: { intervals: [{ every_seconds: 60 }] },
  policies: { overlap: 'skip', catchup_window_seconds: 60, pause_on_failure: false },
  paused: false,
  note: '',
  labels: { clientId: null, domainId: null, serviceId: null, modelId: 'm', modelVersion: '1', description: '' },
};

describe('the schedule gateway', () => {
  it('retries a describe the new schedule cannot answer yet, and an update (which describes first)', async () => {
    const reads = clientAnswering([failure(status.DEADLINE_EXCEEDED), failure(status.FAILED_PRECONDITION), description]);
    expect(await reads.gateway.describe('s1')).toMatchObject({ paused: false, running: 0 });
    expect(reads.calls.describe).toBe(3);

    const updates = clientAnswering([failure(status.INTERNAL), description]);
    await updates.gateway.update(definition);
    expect(updates.calls).toEqual({ describe: 2, update: 1 });
  });

  it('answers at once what a retry cannot change: a schedule that is gone, a refused request', async () => {
    const gone = clientAnswering([new ScheduleNotFoundError('not found', 's1')]);
    expect(await gone.gateway.describe('s1')).toBeUndefined();
    expect(gone.calls.describe).toBe(1);

    const refused = clientAnswering([failure(status.INVALID_ARGUMENT), description]);
    await expect(refused.gateway.describe('s1')).rejects.toBeInstanceOf(ServiceError);
    expect(refused.calls.describe).toBe(1);
  });
});
