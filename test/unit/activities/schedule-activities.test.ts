import { MockActivityEnvironment } from '@temporalio/testing';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { createScheduleActivities } from '../../../activities/schedules';
import { DEPENDENCY_REJECTED, DEPENDENCY_UNAVAILABLE, UNKNOWN_FAILURE_ATTEMPTS } from '../../../activities/classified';
import { awaitFinalStatus, type JobWaitDeps } from '../../../src/domain/schedules/schedule-fires';
import type { JobGateway, JobStore } from '../../../src/domain/ports';
import type { JobView } from '../../../src/db/jobs.repository';
import { MemoryJobStore, jobView } from '../../helpers/memory-stores';

/**
 * The fire workflow's activities alone, in the SDK's MockActivityEnvironment: what they tell Temporal through the
 * activity context (heartbeats, a cancellation, the class of a failure), without a worker, a server or Postgres. The
 * wait for the job is the fire's own (awaitFinalStatus) over stand-ins of the job's row and of Temporal's wait for the
 * close of its workflow.
 */
type Fires = Parameters<typeof createScheduleActivities>[0]['fires'];
type AwaitClosed = JobWaitDeps['gateway']['awaitClosed'];

const JOB = 'job-1';

/** The job's row, counting its reads: the wait reads it only around Temporal's answers. */
function rows(fields: Partial<JobView> = { status: 'running' }) {
  const store = new MemoryJobStore();
  store.put(jobView({ job_id: JOB, trigger: 'schedule', ...fields }));
  let reads = 0;
  const findJob = (jobId: string) => {
    reads++;
    return store.findJob(jobId);
  };
  return {
    findJob,
    get reads() {
      return reads;
    },
    set(fields: Partial<JobView>) {
      store.put({ ...store.jobs.get(JOB)!, ...fields });
    },
  };
}

/** Temporal's wait for the job's workflow, as `answer` says, counting its calls. */
function temporalWait(answer: AwaitClosed) {
  const wait = { calls: 0, awaitClosed: (...args: Parameters<AwaitClosed>) => (wait.calls++, answer(...args)) };
  return wait;
}

function waitDeps(store: Pick<JobStore, 'findJob'>, gateway: Pick<JobGateway, 'awaitClosed'>): JobWaitDeps {
  return { store, gateway, rowReadMs: 10 };
}

/** The activities over `wait` (a job that has ended, unless given), with `fires` replacing the fire's own steps. */
function activities(
  {
    wait = waitDeps(
      rows({ status: 'success' }),
      temporalWait(async () => 'closed'),
    ),
    ...fires
  }: Partial<Fires> & { wait?: JobWaitDeps },
  cancel: () => Promise<'requested' | 'closed'> = async () => 'requested',
) {
  return createScheduleActivities({
    fires: {
      fire: async () => ({ outcome: 'started', jobId: JOB }),
      cancelJob: async () => true,
      awaitFinal: (jobId, ms, beat, signal) => awaitFinalStatus(wait, jobId, ms, beat, signal),
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
  it('heartbeats between Temporal’s answers and reads the final status from the row once the workflow closed', async () => {
    const env = mockEnv();
    const beats: unknown[] = [];
    env.on('heartbeat', (d: unknown) => beats.push(d));
    const row = rows();
    const temporal = temporalWait(async (_jobId, _until, onPoll) => {
      for (let i = 0; i < 3; i++) onPoll();
      row.set({ status: 'failure' });
      return 'closed';
    });
    const acts = activities({ wait: waitDeps(row, temporal) });
    expect(await env.run(() => acts.awaitScheduledJob(JOB))).toBe('failure');
    // One beat before the wait, one per answer that the workflow still runs.
    expect(beats).toHaveLength(4);
    // Read before the wait and after the close, not between.
    expect([row.reads, temporal.calls]).toEqual([2, 1]);
  });

  it('answers null when the wait runs out, so the workflow asks again', async () => {
    const acts = activities({ awaitFinal: async () => undefined });
    expect(await mockEnv().run(() => acts.awaitScheduledJob(JOB))).toBeNull();
  });

  it('ends with the cancellation itself, unclassified, and ends the call to Temporal it was in', async () => {
    const env = mockEnv();
    const row = rows();
    let inCall: () => void;
    const called = new Promise<void>((r) => (inCall = r));
    let ended: Promise<'open'> | undefined;
    const temporal = temporalWait((_jobId, { signal }) => {
      ended = new Promise((r) => signal!.addEventListener('abort', () => r('open')));
      inCall();
      return ended;
    });
    const acts = activities({ wait: waitDeps(row, temporal) });
    const run = env.run(() => acts.awaitScheduledJob(JOB)).catch((err: unknown) => err);
    // Cancelled while Temporal is asked: how a cancellation of the fire reaches a running attempt (by its heartbeat).
    await called;
    env.cancel();
    expect(await run).toBeInstanceOf(CancelledFailure);
    await expect(ended).resolves.toBe('open');
    expect([row.reads, temporal.calls]).toEqual([1, 1]);
  });
});

describe('the fire’s wait for its job', () => {
  const never = () => {
    throw new Error('no beat expected');
  };

  it('reads a held job’s row (no workflow yet) at the interval, then waits on its workflow once it exists', async () => {
    const row = rows({ status: 'pending', queued_reason: 'held by the tenant’s running-job cap' });
    const temporal = temporalWait(async () => {
      if (temporal.calls < 3) return 'absent';
      row.set({ status: 'success', queued_reason: null });
      return 'closed';
    });
    expect(await awaitFinalStatus(waitDeps(row, temporal), JOB, 60_000, () => undefined)).toBe('success');
    expect([row.reads, temporal.calls]).toEqual([4, 3]);
  });

  it('answers a held job that ends without a workflow (cancelled while held) from its row', async () => {
    const row = rows({ status: 'pending', queued_reason: 'held by the tenant’s running-job cap' });
    const temporal = temporalWait(async () => {
      row.set({ status: 'cancelled' });
      return 'absent';
    });
    expect(await awaitFinalStatus(waitDeps(row, temporal), JOB, 60_000, () => undefined)).toBe('cancelled');
    expect([row.reads, temporal.calls]).toEqual([2, 1]);
  });

  it('after a close that left the row unfinished reads the row at the interval, asks Temporal no more, and answers undefined after the bound', async () => {
    const row = rows({ status: 'running' });
    const temporal = temporalWait(async () => 'closed');
    const started = Date.now();
    expect(await awaitFinalStatus({ ...waitDeps(row, temporal), rowReadMs: 20 }, JOB, 200, () => undefined)).toBeUndefined();
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(temporal.calls).toBe(1);
    // At most one read per interval over the bound, and one at each end: no spinning on the closed workflow.
    expect(row.reads).toBeGreaterThanOrEqual(3);
    expect(row.reads).toBeLessThanOrEqual(12);
  });

  it('answers gone when the job’s row is gone, without asking Temporal', async () => {
    const temporal = temporalWait(async () => 'closed');
    expect(await awaitFinalStatus(waitDeps(new MemoryJobStore(), temporal), JOB, 60_000, never)).toBe('gone');
    expect(temporal.calls).toBe(0);
  });

  it('passes its bound to Temporal’s wait, and once that ends open reads the row once more and answers undefined', async () => {
    const row = rows({ status: 'running' });
    const deadlines: number[] = [];
    // As the gateway answers when the deadline is too near for another long poll.
    const temporal = temporalWait(async (_jobId, { deadline }) => (deadlines.push(deadline), 'open'));
    const started = Date.now();
    expect(await awaitFinalStatus(waitDeps(row, temporal), JOB, 60_000, () => undefined)).toBeUndefined();
    expect(deadlines).toHaveLength(1);
    expect(deadlines[0]).toBeGreaterThanOrEqual(started + 60_000);
    expect(deadlines[0]).toBeLessThanOrEqual(Date.now() + 60_000);
    expect([row.reads, temporal.calls]).toEqual([2, 1]);
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
