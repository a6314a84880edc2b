import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { createScheduleActivities } from '../../activities/schedules';
import { DEPENDENCY_REJECTED, DEPENDENCY_UNAVAILABLE, UNKNOWN_FAILURE_ATTEMPTS } from '../../activities/classified';

/**
 * The fire workflow's activities alone, in the SDK's MockActivityEnvironment: what they tell Temporal through the
 * activity context (heartbeats, a cancellation, the class of a failure), without a worker, a server or Postgres.
 */
type Fires = Parameters<typeof createScheduleActivities>[0]['fires'];

function activities(fires: Partial<Fires>, cancel: () => Promise<'requested' | 'closed'> = async () => 'requested') {
  return createScheduleActivities({
    fires: {
      fire: async () => ({ outcome: 'started', jobId: 'job-1' }),
      cancelJob: async () => true,
      awaitFinal: async () => 'success',
      ...fires,
    },
    gateway: { cancel },
  });
}

const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
/** The SDK's mock activity context (at `attempt`), with its logger quiet: these tests fail activities on purpose. */
const mockEnv = (attempt = 1) => new MockActivityEnvironment({ attempt }, { logger: quiet });

/** An error as Node's sockets raise it when the peer is not listening. */
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:7233'), { code: 'ECONNREFUSED' });

describe('awaitScheduledJob', () => {
  it('heartbeats while the job runs and answers its final status', async () => {
    const env = mockEnv();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    const acts = activities({
      awaitFinal: async (_jobId, _ms, beat) => {
        for (let i = 0; i < 3; i++) beat();
        return 'failure';
      },
    });
    expect(await env.run(() => acts.awaitScheduledJob('job-1'))).toBe('failure');
    expect(beats).toHaveLength(3);
  });

  it('answers null when the wait runs out, so the workflow asks again', async () => {
    const acts = activities({ awaitFinal: async () => undefined });
    expect(await mockEnv().run(() => acts.awaitScheduledJob('job-1'))).toBeNull();
  });

  it('ends with the cancellation itself, unclassified, and aborts the wait it was in', async () => {
    const env = mockEnv();
    let aborted: Promise<void> | undefined;
    const acts = activities({
      awaitFinal: (_jobId, _ms, beat, signal) => {
        aborted = new Promise<void>((r) => signal!.addEventListener('abort', () => r()));
        beat();
        return aborted.then(() => undefined);
      },
    });
    // Cancelled once it has heartbeaten: that is how a cancellation of the fire reaches a running attempt.
    env.once('heartbeat', () => env.cancel());
    const failure = await env.run(() => acts.awaitScheduledJob('job-1')).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(CancelledFailure);
    await expect(aborted).resolves.toBeUndefined();
  });
});

describe('failure classification of the schedule activities', () => {
  it('turns an unreachable Temporal into a retryable DependencyUnavailable', async () => {
    const acts = activities({}, async () => Promise.reject(refused()));
    const failure = await mockEnv()
      .run(() => acts.cancelScheduledJob('job-1', 'cancelled'))
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ type: DEPENDENCY_UNAVAILABLE, nonRetryable: false });
  });

  it('fails at once, non-retryably, for a refusal retrying cannot change', async () => {
    const missing = Object.assign(new Error('Function not found'), {
      name: 'ResourceNotFoundException',
      $metadata: { httpStatusCode: 404 },
    });
    const acts = activities({ fire: async () => Promise.reject(missing) });
    const failure = await mockEnv()
      .run(() => acts.fireSchedule({ scheduleId: 's-1', nominalTime: new Date(0).toISOString(), workflowId: 'w-1' }))
      .catch((err: unknown) => err);
    expect(failure).toMatchObject({ type: DEPENDENCY_REJECTED, nonRetryable: true });
  });

  it('retries an unknown error as it is, and gives up on it at attempt UNKNOWN_FAILURE_ATTEMPTS', async () => {
    const bug = new TypeError('cannot read properties of undefined');
    const acts = activities({ cancelJob: async () => Promise.reject(bug) });
    const early = await mockEnv(1)
      .run(() => acts.cancelScheduledJob('job-1', 'x'))
      .catch((err: unknown) => err);
    expect(early).toBe(bug);
    const last = await mockEnv(UNKNOWN_FAILURE_ATTEMPTS)
      .run(() => acts.cancelScheduledJob('job-1', 'x'))
      .catch((err: unknown) => err);
    expect(last).toBeInstanceOf(ApplicationFailure);
    expect(last).toMatchObject({ nonRetryable: true, message: `${bug.message} (after ${UNKNOWN_FAILURE_ATTEMPTS} attempts)` });
  });
});
