import { Harness, uid } from '../../../helpers/harness';
import { activeModel, eventually, initService, tenantWithDomain } from '../../../helpers/fixtures';
import { createScheduleGateway } from '../../../../src/temporal/schedule-gateway';
import { temporalScheduleIdFor } from '../../../../src/domain/ports/schedule-gateway.port';
import { reconcileSchedules } from '../../../../src/domain/schedules/schedules.service';
import pino from 'pino';
import { awaitFinalStatus, createScheduleFires, scheduledJobId } from '../../../../src/domain/schedules/schedule-fires';
import { jobStore } from '../../../../src/db/job-store';
import { createJobsService } from '../../../../src/domain/jobs/jobs.service';
import { createServicesService } from '../../../../src/domain/services/services.service';
import { FeatureRules } from '../../../../src/domain/common/features';
import { UserSchemaCompiler } from '../../../../src/domain/common/json-schemas';
import { workflowIdFor } from '../../../../src/domain/ports';
import { createScheduleActivities } from '../../../../activities/schedules';
import { MockActivityEnvironment } from '@temporalio/testing';
import { CancelledFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { createOutbox } from '../../../../src/domain/webhooks';
import { outboxStore } from '../../../../src/db/outbox.repository';

const MANUAL = { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'manual' } };
const everySecond = { intervals: [{ every_seconds: 1 }] };

describe('schedules', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ worker: true, env: { SCHEDULE_MIN_INTERVAL_SECONDS: '1' } });
  });
  afterAll(() => h.stop());

  const gateway = () =>
    createScheduleGateway({ client: h.temporal, taskQueue: h.config.temporal.taskQueue, namespace: h.config.temporal.namespace });

  async function created(path: string, body: object) {
    const res = await h.api('POST', path, { body });
    if (res.status !== 201) throw new Error(`create schedule: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { schedule_id: string };
  }

  const jobsOf = async (scheduleId: string) => (await h.api('GET', `/v2/jobs?schedule_id=${scheduleId}&limit=200`)).body.items as any[];
  const runsOf = async (path: string) => (await h.api('GET', path)).body.recent_runs as any[];

  it('fires a 1-second interval schedule: jobs with trigger schedule, the schedule id and nominal time, one per fire', async () => {
    const modelId = await activeModel(h);
    const { schedule_id } = await created('/v2/inference-schedules', {
      model_id: modelId,
      model_version: '1',
      input: { probe: 1 },
      spec: everySecond,
      description: 'every second',
    });
    const jobs = await eventually(
      async () => {
        const found = await jobsOf(schedule_id);
        return found.filter((j) => j.status === 'success').length >= 2 && found;
      },
      30000,
      'two scheduled jobs done',
    );
    for (const job of jobs) {
      expect(job).toMatchObject({ trigger: 'schedule', schedule_id, model_id: modelId, input: { probe: 1 } });
      expect(job.job_id).toBe(scheduledJobId(schedule_id, new Date(job.scheduled_at)));
    }
    expect(new Set(jobs.map((j) => j.scheduled_at)).size).toBe(jobs.length);
    const read = (await h.api('GET', `/v2/inference-schedules/${schedule_id}`)).body;
    expect(read.state.paused).toBe(false);
    expect(read.next_fire_times.length).toBeGreaterThan(0);
    expect(read.recent_runs[0]).toMatchObject({ outcome: 'started', job_id: expect.any(String) });
    expect(read.temporal_schedule_id).toBe(`schedule-${schedule_id}`);
    // Findable in the Temporal UI's Schedules view by the job attributes the namespace already has.
    await eventually(
      async () => {
        for await (const s of h.temporal.schedule.list({ query: `ModelId = "${modelId}"` }))
          if (s.scheduleId === temporalScheduleIdFor(schedule_id)) return true;
        return false;
      },
      20000,
      'the schedule listed by ModelId',
    );
    expect((await h.api('DELETE', `/v2/inference-schedules/${schedule_id}`)).status).toBe(200);
    expect(await gateway().describe(schedule_id)).toBeUndefined();
    expect((await h.api('GET', `/v2/inference-schedules/${schedule_id}`)).status).toBe(404);
  }, 60000);

  it('pause stops the fires and unpause resumes them', async () => {
    const modelId = await activeModel(h);
    const path = `/v2/inference-schedules/${(await created('/v2/inference-schedules', { model_id: modelId, model_version: '1', spec: everySecond })).schedule_id}`;
    const scheduleId = path.split('/').pop()!;
    // Fires through the pause: its jobs show that the nominal times of the pause came and were acted on.
    const marker = (await created('/v2/inference-schedules', { model_id: await activeModel(h), model_version: '1', spec: everySecond }))
      .schedule_id;
    await eventually(async () => (await runsOf(path)).length > 0, 20000, 'a first fire');
    const paused = await h.api('POST', `${path}/pause`, { body: { note: 'migration' } });
    expect(paused.body.state).toEqual({ paused: true, note: 'migration' });
    const pausedAt = Date.now();
    await eventually(
      async () => (await jobsOf(marker)).some((j) => Date.parse(j.scheduled_at) >= pausedAt + 3000),
      20000,
      'the marker schedule to fire three nominal times into the pause',
    );
    await h.api('DELETE', `/v2/inference-schedules/${marker}`);
    const unpausedAt = Date.now();
    expect((await h.api('POST', `${path}/unpause`, { body: { note: 'done' } })).body.state).toEqual({ paused: false, note: 'done' });
    const after = await eventually(
      async () => {
        const jobs = await jobsOf(scheduleId);
        return jobs.some((j) => Date.parse(j.scheduled_at) > unpausedAt) && jobs;
      },
      20000,
      'a fire after unpause',
    );
    const duringPause = after.filter((j) => Date.parse(j.scheduled_at) > pausedAt + 1000 && Date.parse(j.scheduled_at) < unpausedAt);
    expect(duringPause).toEqual([]);
    await h.api('DELETE', path);
  }, 60000);

  it('trigger now starts one job, also while the schedule is paused', async () => {
    const modelId = await activeModel(h);
    const { schedule_id } = await created('/v2/inference-schedules', {
      model_id: modelId,
      model_version: '1',
      spec: { cron: ['0 3 1 1 *'] },
      paused: true,
    });
    const answer = await h.api('POST', `/v2/inference-schedules/${schedule_id}/trigger`, { body: {} });
    expect(answer.status).toBe(202);
    expect(answer.body).toEqual({ schedule_id, kind: 'trigger', overlap: 'skip', nominal_times: null });
    const [job] = await eventually(
      async () => {
        const jobs = await jobsOf(schedule_id);
        return jobs.length > 0 && jobs;
      },
      20000,
      'the triggered job',
    );
    expect(job.trigger).toBe('schedule');
    // The trigger's fire workflow is the one Temporal ran; it closes once the job is final.
    await eventually(async () => (await gateway().describe(schedule_id))?.running === 0, 20000, 'the fire to close');
    expect(await jobsOf(schedule_id)).toHaveLength(1);
    await h.api('DELETE', `/v2/inference-schedules/${schedule_id}`);
  }, 60000);

  it('backfills a past hour at 10-minute intervals with 6 jobs, and a repeat starts none', async () => {
    const modelId = await activeModel(h);
    const { schedule_id } = await created('/v2/inference-schedules', {
      model_id: modelId,
      model_version: '1',
      spec: { intervals: [{ every_seconds: 600 }] },
      paused: true,
    });
    const end = new Date(Math.floor(Date.now() / 600_000) * 600_000 - 600_000);
    const start = new Date(end.getTime() - 3600_000);
    const body = { start_at: start.toISOString(), end_at: end.toISOString() };
    const first = await h.api('POST', `/v2/inference-schedules/${schedule_id}/backfill`, { body });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ overlap: 'buffer_all' });
    expect(first.body.nominal_times).toHaveLength(6);
    // Under the default `buffer_all` the fires run one after another.
    const jobs = await eventually(
      async () => {
        const found = await jobsOf(schedule_id);
        return found.length === 6 && found.every((j) => j.status === 'success') && found;
      },
      60000,
      'six backfilled jobs',
    );
    expect(jobs.map((j) => j.scheduled_at).sort()).toEqual([...first.body.nominal_times].sort());

    // The first fires close once their jobs are final; a repeat while they run would meet running workflows.
    await eventually(async () => (await gateway().describe(schedule_id))?.running === 0, 20000, 'the first fires to close');
    expect((await h.api('POST', `/v2/inference-schedules/${schedule_id}/backfill`, { body })).status).toBe(202);
    // Temporal takes a schedule's backfills in order: once a later one's single fire has its job, the repeat is done.
    const next = { start_at: end.toISOString(), end_at: new Date(end.getTime() + 600_000).toISOString() };
    const sentinel = await h.api('POST', `/v2/inference-schedules/${schedule_id}/backfill`, { body: next });
    expect(sentinel.body.nominal_times).toEqual([end.toISOString()]);
    const after = await eventually(
      async () => {
        const found = await jobsOf(schedule_id);
        return found.some((j) => j.scheduled_at === end.toISOString()) && found;
      },
      20000,
      'the later backfill to start its job',
    );
    expect(after).toHaveLength(7);
    await h.api('DELETE', `/v2/inference-schedules/${schedule_id}`);
  }, 150000);

  /** The fires' steps over the harness's Postgres and Temporal, as the worker composes them; starting no workflow. */
  function scheduleFires() {
    const schemas = new UserSchemaCompiler();
    const log = pino({ level: 'silent' });
    const jobs = createJobsService({
      outbox: createOutbox(outboxStore),
      knex: h.knex,
      gateway: h.gateway,
      schemas,
      log,
      completionWaitSeconds: 0,
    });
    return createScheduleFires({
      outbox: createOutbox(outboxStore),
      knex: h.knex,
      jobs,
      services: createServicesService({ outbox: createOutbox(outboxStore), knex: h.knex, rules: new FeatureRules(schemas), jobs }),
      launch: async () => undefined,
      gateway: h.gateway,
      log,
    });
  }

  /** Triggers a paused schedule of a model whose jobs wait for their report; answers the job once it runs and its fire. */
  async function waitingFire() {
    const modelId = await activeModel(h, { handlers: MANUAL });
    const { schedule_id } = await created('/v2/inference-schedules', {
      model_id: modelId,
      model_version: '1',
      spec: { cron: ['0 3 1 1 *'] },
      paused: true,
    });
    expect((await h.api('POST', `/v2/inference-schedules/${schedule_id}/trigger`, { body: {} })).status).toBe(202);
    const [job] = await eventually(
      async () => {
        const jobs = await jobsOf(schedule_id);
        return jobs.length > 0 && jobs[0].status === 'running' && jobs;
      },
      20000,
      'the triggered job running',
    );
    const [run] = await runsOf(`/v2/inference-schedules/${schedule_id}`);
    const fire = h.temporal.workflow.getHandle(run.fire_workflow_id);
    // The fire is in its wait: its awaitScheduledJob attempt runs on the worker.
    await eventually(
      async () =>
        (await fire.describe()).raw.pendingActivities?.some(
          (a) =>
            a.activityType?.name === 'awaitScheduledJob' &&
            a.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
        ),
      20000,
      'the fire to wait for its job',
    );
    return { modelId, scheduleId: schedule_id, job, fire };
  }

  it('a fire closes moments after its job: it waits on the close of the job’s workflow, not on a periodic read', async () => {
    const { modelId, scheduleId, job, fire } = await waitingFire();
    // The same wait beside the fire's, over the same Postgres and Temporal, counting its reads of the job's row.
    const rows = jobStore(h.knex);
    let reads = 0;
    const store = { findJob: (jobId: string) => (reads++, rows.findJob(jobId)) };
    // Temporal's wait, wrapped to note the reads made before it and while it lasted.
    const readsAround: number[] = [];
    let waiting: () => void;
    const inTemporalWait = new Promise<void>((r) => (waiting = r));
    const gateway: Pick<typeof h.gateway, 'awaitClosed'> = {
      awaitClosed: async (...args) => {
        readsAround.push(reads);
        waiting();
        const closed = await h.gateway.awaitClosed(...args);
        readsAround.push(reads);
        return closed;
      },
    };
    const wait = awaitFinalStatus({ store, gateway }, job.job_id, 60_000, () => undefined);
    await inTemporalWait;
    const done = await h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${job.job_id}/complete`, { body: { status: 'success' } });
    expect(done.status).toBe(200);
    expect(await wait).toBe('success');
    // One read before Temporal's wait, none while it lasted (until the job's workflow closed), one after it.
    expect(readsAround).toEqual([1, 1]);
    expect(reads).toBe(2);
    expect(await fire.result()).toEqual({ outcome: 'started', jobId: job.job_id, status: 'success' });
    // Both close times are the server's: the fire's wait answered within a fraction of the 2 s between periodic reads.
    const jobClosed = (await h.temporal.workflow.getHandle(workflowIdFor(job.job_id)).describe()).closeTime!;
    const fireClosed = (await fire.describe()).closeTime!;
    expect(fireClosed.getTime() - jobClosed.getTime()).toBeLessThan(1000);
    await h.api('DELETE', `/v2/inference-schedules/${scheduleId}`);
  }, 60000);

  it('Temporal’s wait for a running job’s workflow ends open by its deadline, without asking again in the server’s last second', async () => {
    const { scheduleId, job } = await waitingFire();
    const started = Date.now();
    let polls = 0;
    expect(await h.gateway.awaitClosed(job.job_id, { deadline: started + 4000 }, () => polls++)).toBe('open');
    // The server answers at its deadline less a second, and at once with less left: one answer, then no more calls.
    expect(polls).toBeLessThanOrEqual(1);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(await h.gateway.awaitClosed(job.job_id, { deadline: Date.now() + 1000 }, () => polls++)).toBe('open');
    expect(polls).toBeLessThanOrEqual(1);
    await h.api('POST', `/v2/jobs/${job.job_id}/cancel`, { body: {} });
    await h.api('DELETE', `/v2/inference-schedules/${scheduleId}`);
  }, 60000);

  it('cancelling a fire ends its wait, and the call to Temporal it was waiting in; the fire cancels its job', async () => {
    const { scheduleId, job, fire } = await waitingFire();
    // The activity as the worker runs it, over the same Postgres and Temporal, in a context this test cancels.
    const fires = scheduleFires();
    let wait: Promise<string | undefined> | undefined;
    const acts = createScheduleActivities({
      fires: { ...fires, awaitFinal: (...args) => (wait = fires.awaitFinal(...args)) },
      gateway: h.gateway,
    });
    const env = new MockActivityEnvironment(
      { attempt: 1 },
      { logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} } },
    );
    // Its first heartbeat comes as it asks Temporal: a long poll, answered when the job's workflow closes or after 20 s.
    const asking = new Promise((r) => env.once('heartbeat', r));
    const attempt = env.run(() => acts.awaitScheduledJob(job.job_id)).catch((err: unknown) => err);
    await asking;
    const cancelledAt = Date.now();
    env.cancel();
    expect(await attempt).toBeInstanceOf(CancelledFailure);
    await expect(wait).resolves.toBeUndefined();
    expect(Date.now() - cancelledAt).toBeLessThan(2000);
    expect((await jobsOf(scheduleId))[0].status).toBe('running');

    // The fire itself, cancelled in Temporal (as overlap `cancel_other` does): it ends and cancels its job.
    await fire.cancel();
    const failure = await fire.result().catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowFailedError);
    expect((failure as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
    expect(await jobsOf(scheduleId)).toEqual([
      expect.objectContaining({ job_id: job.job_id, status: 'cancelled', cancelled_by: 'schedule' }),
    ]);
    await h.api('DELETE', `/v2/inference-schedules/${scheduleId}`);
  }, 60000);

  it('decides a fire once: a repeated fire (a retried start) returns the same job and writes no second one', async () => {
    const modelId = await activeModel(h);
    const { schedule_id } = await created('/v2/inference-schedules', {
      model_id: modelId,
      model_version: '1',
      spec: { cron: ['0 3 * * *'] },
      paused: true,
    });
    const fires = scheduleFires();
    const at = new Date('2031-01-01T03:00:00Z');
    const [a, b] = await Promise.all([fires.fire(schedule_id, at, 'wf-1'), fires.fire(schedule_id, at, 'wf-2')]);
    const again = await fires.fire(schedule_id, at, 'wf-3');
    expect(a).toEqual({ outcome: 'started', jobId: scheduledJobId(schedule_id, at) });
    expect(b).toEqual(a);
    expect(again).toEqual(a);
    expect(await h.knex('model_jobs').where({ schedule_id })).toHaveLength(1);
    await h.knex('model_jobs').where({ schedule_id }).update({ status: 'cancelled' });
    await h.api('DELETE', `/v2/inference-schedules/${schedule_id}`);
  });

  it('overlap skip: no second job while a job waits for its report, then the next fire starts one', async () => {
    const modelId = await activeModel(h, { handlers: MANUAL });
    const { schedule_id } = await created('/v2/inference-schedules', {
      model_id: modelId,
      model_version: '1',
      spec: everySecond,
      policies: { overlap: 'skip' },
    });
    const [running] = await eventually(
      async () => {
        const jobs = await jobsOf(schedule_id);
        return jobs.length > 0 && jobs[0].status === 'running' && jobs;
      },
      20000,
      'the first job running',
    );
    // Temporal counts the fires it skipped for the overlap: wait for three of them.
    const handle = h.temporal.schedule.getHandle(temporalScheduleIdFor(schedule_id));
    await eventually(async () => (await handle.describe()).info.numActionsSkippedOverlap >= 3, 20000, 'three skipped fires');
    expect((await jobsOf(schedule_id)).map((j) => j.job_id)).toEqual([running.job_id]);
    const done = await h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${running.job_id}/complete`, { body: { status: 'success' } });
    expect(done.status).toBe(200);
    await eventually(async () => (await jobsOf(schedule_id)).length > 1, 20000, 'a next job after the first ended');
    await h.api('POST', `/v2/inference-schedules/${schedule_id}/pause`, { body: {} });
    for (const job of await jobsOf(schedule_id)) {
      if (job.status === 'running') await h.api('POST', `/v2/jobs/${job.job_id}/cancel`, { body: {} });
    }
    await h.api('DELETE', `/v2/inference-schedules/${schedule_id}`);
  }, 60000);

  it('pause on failure: a fire whose job fails pauses the schedule in Temporal, which the schedule shows', async () => {
    const modelId = await activeModel(h, {
      handlers: { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'fail' } },
    });
    const { schedule_id } = await created('/v2/inference-schedules', {
      model_id: modelId,
      model_version: '1',
      spec: everySecond,
      policies: { pause_on_failure: true },
    });
    const read = await eventually(
      async () => {
        const res = (await h.api('GET', `/v2/inference-schedules/${schedule_id}`)).body;
        return res.state.paused && res;
      },
      30000,
      'the schedule paused by its failed fire',
    );
    // The failed fire is among the recent runs; a fire of the next second may have started before the pause took hold.
    expect(read.recent_runs).toEqual(expect.arrayContaining([expect.objectContaining({ outcome: 'started', job_status: 'failure' })]));
    expect(read.state.note).not.toBe('');
    await h.api('DELETE', `/v2/inference-schedules/${schedule_id}`);
  }, 60000);

  it('overlap skip sees a job started by a default trigger: the schedule’s own fires start no second job while it runs', async () => {
    const modelId = await activeModel(h, { handlers: MANUAL });
    const path = `/v2/inference-schedules/${
      (await created('/v2/inference-schedules', { model_id: modelId, model_version: '1', spec: { cron: ['0 3 1 1 *'] } })).schedule_id
    }`;
    const scheduleId = path.split('/').pop()!;
    const trigger = await h.api('POST', `${path}/trigger`, { body: {} });
    const [triggered] = await eventually(
      async () => {
        const jobs = await jobsOf(scheduleId);
        return jobs.length > 0 && jobs[0].status === 'running' && jobs;
      },
      20000,
      'the triggered job running',
    );
    // Now the schedule fires every second under its default `skip`, while the triggered job still waits.
    expect((await h.api('PUT', path, { body: { spec: everySecond } })).status).toBe(200);
    const handle = h.temporal.schedule.getHandle(temporalScheduleIdFor(scheduleId));
    await eventually(
      async () => (await handle.describe()).info.numActionsSkippedOverlap >= 3 || (await jobsOf(scheduleId)).length > 1,
      20000,
      'three skipped fires (or a second job)',
    );
    expect((await jobsOf(scheduleId)).map((j) => j.job_id)).toEqual([triggered.job_id]);
    expect(trigger.body).toMatchObject({ overlap: 'skip' });
    await h.api('POST', `${path}/pause`, { body: {} });
    for (const job of await jobsOf(scheduleId)) {
      if (job.status === 'running') await h.api('POST', `/v2/jobs/${job.job_id}/cancel`, { body: {} });
    }
    await h.api('DELETE', path);
  }, 60000);

  it('pause on failure sees a job started by a default trigger: its failure pauses the schedule', async () => {
    const modelId = await activeModel(h, {
      handlers: { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'fail' } },
    });
    const { schedule_id } = await created('/v2/inference-schedules', {
      model_id: modelId,
      model_version: '1',
      spec: { cron: ['0 3 1 1 *'] },
      policies: { pause_on_failure: true },
    });
    expect((await h.api('POST', `/v2/inference-schedules/${schedule_id}/trigger`, { body: {} })).status).toBe(202);
    const read = await eventually(
      async () => {
        const res = (await h.api('GET', `/v2/inference-schedules/${schedule_id}`)).body;
        return res.state.paused && res;
      },
      30000,
      'the schedule paused by the triggered job’s failure',
    );
    // The failed fire is among the recent runs; a fire of the next second may have started before the pause took hold.
    expect(read.recent_runs).toEqual(expect.arrayContaining([expect.objectContaining({ outcome: 'started', job_status: 'failure' })]));
    await h.api('DELETE', `/v2/inference-schedules/${schedule_id}`);
  }, 60000);

  it('stores a service schedule’s metadata on each job it starts', async () => {
    const modelId = await activeModel(h);
    const { clientId, domainId, base } = await tenantWithDomain(h, { modelId });
    await initService(h, base, 'SVC-M', { seats: 4 });
    const path = `/v2/clients/${clientId}/schedules`;
    const metadata = { team: 'pricing', nightly: true };
    const { schedule_id } = await created(path, { domain_id: domainId, service_id: 'SVC-M', spec: { cron: ['0 3 * * *'] }, metadata });
    await h.api('POST', `${path}/${schedule_id}/trigger`, { body: {} });
    const [job] = await eventually(
      async () => {
        const jobs = await jobsOf(schedule_id);
        return jobs.length > 0 && jobs;
      },
      20000,
      'the re-scoring job',
    );
    expect(job.metadata).toEqual(metadata);
    await h.api('DELETE', `${path}/${schedule_id}`);
  }, 60000);

  it('stores a version schedule’s metadata on each job it starts', async () => {
    const modelId = await activeModel(h);
    const metadata = { team: 'pricing' };
    const { schedule_id } = await created('/v2/inference-schedules', {
      model_id: modelId,
      model_version: '1',
      spec: { cron: ['0 3 * * *'] },
      metadata,
    });
    await h.api('POST', `/v2/inference-schedules/${schedule_id}/trigger`, { body: {} });
    const [job] = await eventually(
      async () => {
        const jobs = await jobsOf(schedule_id);
        return jobs.length > 0 && jobs;
      },
      20000,
      'the inference job',
    );
    expect(job.metadata).toEqual(metadata);
    await h.api('DELETE', `/v2/inference-schedules/${schedule_id}`);
  }, 60000);

  it('records a skipped run with its reason when the tenant is suspended, and announces it', async () => {
    const modelId = await activeModel(h);
    const { clientId, domainId, base } = await tenantWithDomain(h, { modelId });
    expect((await initService(h, base, 'SVC-1', { seats: 3 })).status).toBe(202);
    const path = `/v2/clients/${clientId}/schedules`;
    const { schedule_id } = await created(path, { domain_id: domainId, service_id: 'SVC-1', spec: { cron: ['0 3 * * *'] } });
    expect((await h.api('PUT', `/v2/clients/${clientId}/new_status`, { body: { status: 'suspended' } })).status).toBe(200);
    await h.api('POST', `${path}/${schedule_id}/trigger`, { body: {} });
    const [run] = await eventually(
      async () => {
        const runs = await runsOf(`${path}/${schedule_id}`);
        return runs.length > 0 && runs;
      },
      20000,
      'the skipped run',
    );
    expect(run).toMatchObject({ outcome: 'skipped', job_id: null, reason: `client ${clientId} is suspended` });
    const events = await h.knex('webhook_events').where({ type: 'schedule.run_skipped', client_id: clientId });
    expect(events).toHaveLength(1);
    expect(events[0].data).toMatchObject({ schedule_id, reason: `client ${clientId} is suspended` });
    expect(await jobsOf(schedule_id)).toEqual([]);
    await h.api('PUT', `/v2/clients/${clientId}/new_status`, { body: { status: 'active' } });
    await h.api('DELETE', `${path}/${schedule_id}`);
  }, 60000);

  it('re-scores a service with its current features through the service job path', async () => {
    const modelId = await activeModel(h);
    const { clientId, domainId, base } = await tenantWithDomain(h, { modelId });
    await initService(h, base, 'SVC-2', { seats: 7 });
    const path = `/v2/clients/${clientId}/schedules`;
    const { schedule_id } = await created(path, { domain_id: domainId, service_id: 'SVC-2', spec: { cron: ['0 3 * * *'] }, paused: true });
    await h.api('POST', `${path}/${schedule_id}/trigger`, { body: {} });
    const [job] = await eventually(
      async () => {
        const jobs = await jobsOf(schedule_id);
        return jobs.length > 0 && jobs[0].status === 'success' && jobs;
      },
      20000,
      'the re-scoring job',
    );
    expect(job).toMatchObject({ client_id: clientId, domain_id: domainId, service_id: 'SVC-2', trigger: 'schedule' });
    expect(job.input.features).toMatchObject({ seats: 7, cabin: 'economy' });
    const lineage = await h.api('GET', `/v2/jobs/${job.job_id}/lineage`);
    expect(lineage.body.jobs[0]).toMatchObject({ schedule_id, scheduled_at: job.scheduled_at });
    await h.api('DELETE', `${path}/${schedule_id}`);
  }, 60000);

  it('answers a dry run with the next 5 fire times and the first run, creating nothing', async () => {
    const modelId = await activeModel(h);
    const res = await h.api('POST', '/v2/training-schedules?dry_run=true', {
      body: { model_id: modelId, model_version: '1', spec: { cron: ['0 2 * * *'], time_zone: 'Europe/Berlin' } },
    });
    expect(res.status).toBe(201);
    expect(res.body.preview.next_fire_times).toHaveLength(5);
    for (const t of res.body.preview.next_fire_times) expect(new Date(t).getUTCHours()).toBeLessThanOrEqual(1); // 02:00 Berlin
    // Version 1 is active, so training would not start: the preview says why.
    expect(res.body.preview.first_run).toEqual({
      would_start: false,
      skipped_reason: expect.stringMatching(/training starts from/),
      job: null,
    });
    expect(await h.knex('schedules').where({ model_id: modelId })).toEqual([]);
    const infer = await h.api('POST', '/v2/inference-schedules?dry_run=true', {
      body: { model_id: modelId, model_version: '1', input: { a: 1 }, spec: everySecond },
    });
    expect(infer.body.preview.first_run).toMatchObject({
      would_start: true,
      job: { job_type: 'inference', trigger: 'schedule', input: { a: 1 } },
    });
    expect(await h.knex('model_jobs').where({ model_id: modelId })).toEqual([]);
  });

  it('refuses bad input with a 400 naming the field and the rule, writing nothing', async () => {
    const modelId = await activeModel(h);
    const { clientId, domainId } = await tenantWithDomain(h, { modelId });
    const version = (spec: object, extra: object = {}) => ({ model_id: modelId, model_version: '1', spec, ...extra });
    const cases: [string, object, RegExp][] = [
      ['/v2/inference-schedules', version({ cron: ['61 * * * *'] }), /^spec\.cron\[0\] is not a valid cron expression/],
      ['/v2/inference-schedules', version({ cron: ['0 2 * * *'], time_zone: 'Mars/Olympus' }), /^spec\.time_zone must be an IANA/],
      [
        '/v2/inference-schedules',
        version({ intervals: [{ every_seconds: 1 }] }, { model_version: '9' }),
        /^model_version: version 9 of model/,
      ],
      [
        '/v2/training-schedules',
        version({ cron: ['0 2 * * *'], start_at: '2031-01-02T00:00:00Z', end_at: '2031-01-01T00:00:00Z' }),
        /^spec\.end_at must be after spec\.start_at/,
      ],
      [
        '/v2/inference-schedules',
        { model_id: 'no-such-model', model_version: '1', spec: everySecond },
        /^model_id: model no-such-model does not exist/,
      ],
      [
        `/v2/clients/${clientId}/schedules`,
        { domain_id: domainId, service_id: 'NOPE', spec: everySecond },
        /^service_id: service NOPE does not exist/,
      ],
      [
        `/v2/clients/${clientId}/schedules`,
        { domain_id: 'nope', service_id: 'X', spec: everySecond },
        /^domain_id: domain nope does not exist/,
      ],
      ['/v2/inference-schedules', version({ intervals: [{ every_seconds: 0 }] }), /every_seconds/],
    ];
    for (const [path, body, message] of cases) {
      const res = await h.api('POST', path, { body });
      expect([path, res.status, res.body.message]).toEqual([path, 400, expect.stringMatching(message)]);
    }
    expect(await h.knex('schedules').where({ model_id: modelId })).toEqual([]);
    expect(await h.knex('schedules').where({ client_id: clientId })).toEqual([]);
  });

  it('refuses an interval below the minimum and a schedule past the per-tenant limit', async () => {
    const strict = await Harness.start({ env: { SCHEDULE_MIN_INTERVAL_SECONDS: '60', SCHEDULES_MAX_PER_TENANT: '1' } });
    try {
      const modelId = await activeModel(strict);
      const { clientId, domainId, base } = await tenantWithDomain(strict, { modelId });
      await initService(strict, base, 'SVC-L', { seats: 2 });
      const short = await strict.api('POST', `/v2/clients/${clientId}/schedules`, {
        body: { domain_id: domainId, service_id: 'SVC-L', spec: { intervals: [{ every_seconds: 30 }] } },
      });
      expect(short.status).toBe(400);
      expect(short.body.message).toBe('spec.intervals[0].every_seconds must be at least 60 (the shortest interval allowed), got 30');
      const body = { domain_id: domainId, service_id: 'SVC-L', spec: { cron: ['0 3 * * *'] } };
      const first = await strict.api('POST', `/v2/clients/${clientId}/schedules`, { body });
      expect(first.status).toBe(201);
      const second = await strict.api('POST', `/v2/clients/${clientId}/schedules`, { body });
      expect(second.status).toBe(422);
      expect(second.body.message).toMatch(/has 1 schedules, the most allowed \(SCHEDULES_MAX_PER_TENANT\)/);
      await strict.api('DELETE', `/v2/clients/${clientId}/schedules/${first.body.schedule_id}`);
    } finally {
      await strict.stop();
    }
  });

  it('hides schedules of other collections and tenants (404)', async () => {
    const modelId = await activeModel(h);
    const { schedule_id } = await created('/v2/inference-schedules', {
      model_id: modelId,
      model_version: '1',
      spec: { cron: ['0 3 * * *'] },
    });
    expect((await h.api('GET', `/v2/training-schedules/${schedule_id}`)).status).toBe(404);
    expect((await h.api('GET', `/v2/clients/${uid('client')}/schedules/${schedule_id}`)).status).toBe(404);
    await h.api('DELETE', `/v2/inference-schedules/${schedule_id}`);
  });

  it('reconciles a Temporal Schedule left without its row, and a row left without its Temporal Schedule', async () => {
    const modelId = await activeModel(h);
    const { schedule_id } = await created('/v2/inference-schedules', {
      model_id: modelId,
      model_version: '1',
      spec: { cron: ['0 3 * * *'] },
    });
    const g = gateway();
    await g.delete(schedule_id); // as an operator deleting it in the Temporal UI
    const orphan = uid('orphan');
    await g.create({
      scheduleId: orphan,
      action: 'inference',
      spec: { cron: ['0 3 * * *'] },
      policies: { overlap: 'skip', catchup_window_seconds: 60, pause_on_failure: false },
      paused: true,
      note: '',
      labels: { clientId: null, domainId: null, serviceId: null, modelId, modelVersion: '1', description: '' },
    });
    const log = { warn: () => undefined } as any;
    const made: string[] = [];
    const removed: string[] = [];
    await eventually(
      async () => {
        const mended = await reconcileSchedules({ knex: h.knex, gateway: g, log }, 1);
        made.push(...mended.created);
        removed.push(...mended.deleted);
        return made.includes(schedule_id) && removed.includes(orphan);
      },
      20000,
      'the reconciler to mend both',
    );
    expect((await h.api('GET', `/v2/inference-schedules/${schedule_id}`)).body.next_fire_times.length).toBeGreaterThan(0);
    await h.api('DELETE', `/v2/inference-schedules/${schedule_id}`);
  });
});
