import pino from 'pino';
import { createKnex } from '../../../../src/db/knex';
import { planCascades } from '../../../../src/domain/jobs/run/cascades';
import { createJobsService } from '../../../../src/domain/jobs/jobs.service';
import { completionFromRecord } from '../../../../src/domain/jobs/job-completion.service';
import { assertRerunnable, createJobStarts, rerunOf } from '../../../../src/domain/jobs/launch/job-requests';
import { UserSchemaCompiler } from '../../../../src/domain/common/json-schemas';
import type { CompletionDelivery, JobGateway } from '../../../../src/domain/ports/job-gateway.port';
import type { MachinePrincipal } from '../../../../src/auth/principal';
import type { Permission } from '../../../../src/auth/permissions';
import type { CompletionResult } from '../../../../src/db/jobs.repository';
import { ConflictError, ForbiddenError, NotFoundError, UnavailableError } from '../../../../src/errors';
import { deterministicUuid } from '../../../../src/ids';
import { MemoryJobStore, MemorySubscriptionStore, jobView, subscription } from '../../../helpers/memory-stores';

import { FeatureRules } from '../../../../src/domain/common/features';
import { createOutbox } from '../../../../src/domain/webhooks';
import { MemoryOutboxStore } from '../../../helpers/memory-stores';

/**
 * The job rules against in-memory stores (test/helpers/memory-stores.ts): the completion's answer, cascade planning
 * and re-runs, without Postgres or Temporal. The Postgres stores are exercised by the integration suites.
 */
const schemas = new UserSchemaCompiler();

function machine(permissions: Permission[], tenants: string[] | 'platform' = 'platform'): MachinePrincipal {
  return {
    kind: 'machine',
    subject: 'caller',
    clientId: 'caller',
    admin: false,
    permissions: new Set(permissions),
    access: tenants === 'platform' ? { access: 'platform', tenants: [] } : { access: 'tenant', tenants },
  };
}

/** A gateway that starts everything and answers completions with `complete`. */
function fakeGateway(complete: JobGateway['complete']): JobGateway {
  return {
    launch: async () => 'started',
    readiness: async () => ({ ok: true }),
    ping: async () => undefined,
    complete,
    cancel: async () => 'closed',
    uiUrl: () => null,
    closedUnfinished: async () => [],
    awaitClosed: async () => 'closed',
  };
}

const answer = (jobId: string, status: 'success' | 'failure' = 'success'): CompletionResult => ({
  job_id: jobId,
  model_id: 'm',
  model_version: '1',
  status,
  triggered_events: [],
});

describe('cascade planning', () => {
  const source = jobView({
    job_id: 'src-1',
    client_id: 'acme',
    domain_uuid: 'd-1',
    service_uuid: 's-1',
    cascade_depth: 1,
    root_job_id: 'root-1',
  });
  const plan = (subs: MemorySubscriptionStore, maxCascadeDepth = 5, output: Record<string, unknown> = { score: 0.9 }) =>
    planCascades(subs, { schemas, maxCascadeDepth }, source, 'inference_complete', output);

  it('creates one cascade job per active subscription, with an id derived from the source job and the subscription', async () => {
    const subs = new MemorySubscriptionStore();
    subs.subscriptions.push(
      subscription({ subscription_id: 'sub-out' }),
      subscription({ subscription_id: 'sub-stored', input_source: 'stored', input: { fixed: true }, target_version: '7' }),
    );
    const { triggered, jobs } = await plan(subs);
    const idOf = (sub: string) => deterministicUuid('cascade', 'src-1', sub);
    expect(triggered).toEqual([
      { subscription_id: 'sub-out', job_id: idOf('sub-out') },
      { subscription_id: 'sub-stored', job_id: idOf('sub-stored') },
    ]);
    expect(jobs.map((j) => [j.job_id, j.model_version, j.input])).toEqual([
      [idOf('sub-out'), '1', { score: 0.9 }],
      [idOf('sub-stored'), '7', { fixed: true }],
    ]);
    // The cascade inherits the source's tenant and tree, one level deeper.
    expect(jobs[0]).toMatchObject({
      trigger: 'cascade',
      client_id: 'acme',
      domain_uuid: 'd-1',
      service_uuid: 's-1',
      source_job_id: 'src-1',
      cascade_depth: 2,
      root_job_id: 'root-1',
      metadata: { trigger_output: { score: 0.9 }, trigger_event: 'inference_complete', label: 'sub-out' },
    });
  });

  it('answers each subscription that cannot fire with its reason and still fires the others', async () => {
    const subs = new MemorySubscriptionStore();
    subs.subscriptions.push(
      subscription({ subscription_id: 'stale', status: 'stale' }),
      subscription({ subscription_id: 'gone', target_exists: false, target_version: null }),
      subscription({ subscription_id: 'no-version', target_version: null }),
      subscription({
        subscription_id: 'contract',
        target_contracts: { inference: { input_schema: { type: 'object', required: ['text'] } } },
      }),
      subscription({ subscription_id: 'fires' }),
    );
    const { triggered, jobs } = await plan(subs);
    expect(triggered.map((t) => [t.subscription_id, t.error ?? 'fired'])).toEqual([
      ['stale', 'subscription is stale; re-activate it after checking its input against the target'],
      ['gone', 'target model target no longer exists'],
      ['no-version', 'target model target has no active version'],
      ['contract', expect.stringMatching(/^payload does not match the input_schema of target: .*text/)],
      ['fires', 'fired'],
    ]);
    expect(jobs.map((j) => j.subscription_id)).toEqual(['fires']);
  });

  it('fires nothing past the depth limit', async () => {
    const subs = new MemorySubscriptionStore();
    subs.subscriptions.push(subscription({ subscription_id: 'deep' }));
    expect(await plan(subs, 1)).toEqual({
      triggered: [{ subscription_id: 'deep', error: 'cascade depth limit of 1 reached' }],
      jobs: [],
    });
  });

  it('reads only the subscriptions of the source model to the trigger', async () => {
    const subs = new MemorySubscriptionStore();
    subs.subscriptions.push(
      subscription({ subscription_id: 'other-model', source_model_id: 'other' }),
      subscription({ subscription_id: 'training', trigger_event: 'training_complete' }),
    );
    expect(await plan(subs)).toEqual({ triggered: [], jobs: [] });
  });
});

describe('the completion answer from the record', () => {
  it('repeats the stored answer for the recorded status', () => {
    const job = jobView({ job_id: 'j', status: 'success', completion_result: answer('j') });
    expect(completionFromRecord(job, { status: 'success' })).toEqual(answer('j'));
  });

  it('refuses another status, a cancelled and a timed-out job with 409, and asks for a retry while it is finishing', () => {
    expect(() => completionFromRecord(jobView({ job_id: 'j', completion_result: answer('j') }), { status: 'failure' })).toThrow(
      new ConflictError('the job was already reported success'),
    );
    expect(() => completionFromRecord(jobView({ job_id: 'j', status: 'cancelled', cancelled_by: 'ops' }), { status: 'success' })).toThrow(
      new ConflictError('the job was cancelled by ops'),
    );
    expect(() => completionFromRecord(jobView({ job_id: 'j', status: 'timed_out' }), { status: 'success' })).toThrow(ConflictError);
    expect(() => completionFromRecord(jobView({ job_id: 'j', status: 'success' }), { status: 'success' })).toThrow(UnavailableError);
  });
});

describe('completing a job (jobs service on an in-memory store)', () => {
  // Never connected: every read and write of these rules goes to the store.
  const knex = createKnex('postgres://nobody@127.0.0.1:1/none', { max: 1 });
  afterAll(() => knex.destroy());

  function service(delivery: (jobId: string) => CompletionDelivery) {
    const store = new MemoryJobStore();
    const deliveries: string[] = [];
    const gateway = fakeGateway(async (jobId) => {
      deliveries.push(jobId);
      return delivery(jobId);
    });
    const jobs = createJobsService({
      outbox: createOutbox(() => new MemoryOutboxStore()),
      knex,
      gateway,
      schemas,
      log: pino({ level: 'silent' }),
      completionWaitSeconds: 1,
      store,
    });
    return { store, deliveries, jobs };
  }
  const ops = machine(['complete_job']);

  it("answers with the workflow's answer and marks the outcome confirmed", async () => {
    const { store, jobs } = service((id) => ({ kind: 'answered', result: answer(id) }));
    store.put(jobView({ job_id: 'j1', status: 'running' }));
    expect(await jobs.complete(ops, 'm', '1', 'j1', { status: 'success' })).toEqual(answer('j1'));
    expect(store.confirmed).toEqual(['j1']);
  });

  it('answers a repeat from the record without asking the workflow', async () => {
    const { store, deliveries, jobs } = service(() => {
      throw new Error('not asked');
    });
    store.put(jobView({ job_id: 'j2', completion_result: answer('j2') }));
    expect(await jobs.complete(ops, 'm', '1', 'j2', { status: 'success' })).toEqual(answer('j2'));
    expect(deliveries).toEqual([]);
  });

  it('refuses a report for a job not dispatched yet with 409', async () => {
    const { store, deliveries, jobs } = service((id) => ({ kind: 'answered', result: answer(id) }));
    store.put(jobView({ job_id: 'j3', status: 'pending' }));
    await expect(jobs.complete(ops, 'm', '1', 'j3', { status: 'success' })).rejects.toThrow(ConflictError);
    expect(deliveries).toEqual([]);
  });

  it('reads the answer again when the workflow closed meanwhile', async () => {
    const { store, jobs } = service((id) => {
      store.put(jobView({ job_id: id, status: 'failure', completion_result: answer(id, 'failure') }));
      return { kind: 'closed' };
    });
    store.put(jobView({ job_id: 'j4', status: 'running' }));
    expect(await jobs.complete(ops, 'm', '1', 'j4', { status: 'failure' })).toEqual(answer('j4', 'failure'));
    expect(store.confirmed).toEqual(['j4']);
  });

  it('answers 409 naming the missing workflow when an unfinished job has no workflow on this Temporal', async () => {
    const { store, jobs } = service(() => ({ kind: 'closed' }));
    store.put(jobView({ job_id: 'j7', status: 'running' }));
    const refused = jobs.complete(ops, 'm', '1', 'j7', { status: 'success' });
    await expect(refused).rejects.toThrow(ConflictError);
    await expect(refused).rejects.toThrow(/workflow job-j7 does not exist on this Temporal.*TEMPORAL_MODE/);
  });

  it('answers 503 when the report was not taken in time, and the recorded answer when it was', async () => {
    const { store, jobs } = service(() => ({ kind: 'unanswered', cause: new Error('deadline') }));
    store.put(jobView({ job_id: 'j5', status: 'running' }));
    await expect(jobs.complete(ops, 'm', '1', 'j5', { status: 'success' })).rejects.toThrow(UnavailableError);
    const taken = service(() => {
      taken.store.put(jobView({ job_id: 'j6', completion_result: answer('j6') }));
      return { kind: 'unanswered', cause: new Error('deadline') };
    });
    taken.store.put(jobView({ job_id: 'j6', status: 'running' }));
    expect(await taken.jobs.complete(ops, 'm', '1', 'j6', { status: 'success' })).toEqual(answer('j6'));
  });

  it("answers another tenant's job, or another model's, like a missing one", async () => {
    const { store, jobs } = service((id) => ({ kind: 'answered', result: answer(id) }));
    store.put(jobView({ job_id: 'j7', status: 'running', client_id: 'globex' }));
    await expect(jobs.complete(machine(['complete_job'], ['acme']), 'm', '1', 'j7', { status: 'success' })).rejects.toThrow(NotFoundError);
    await expect(jobs.complete(ops, 'other', '1', 'j7', { status: 'success' })).rejects.toThrow(NotFoundError);
  });
});

describe('re-run rules', () => {
  it('re-runs only a final job, and a training only with train_model', () => {
    const reader = machine(['run_inference']);
    expect(() => assertRerunnable(reader, jobView({ job_id: 'r', status: 'running' }))).toThrow(
      new ConflictError('job r is running; re-run it once it is final (or cancel it first)'),
    );
    expect(() => assertRerunnable(reader, jobView({ job_id: 't', job_type: 'training', status: 'failure' }))).toThrow(ForbiddenError);
    expect(() =>
      assertRerunnable(machine(['train_model']), jobView({ job_id: 't', job_type: 'training', status: 'failure' })),
    ).not.toThrow();
    for (const status of ['success', 'failure', 'timed_out', 'cancelled'] as const) {
      expect(() => assertRerunnable(reader, jobView({ job_id: 'f', status }))).not.toThrow();
    }
  });

  it("stages the original's version, input and context, linked by rerun_of", () => {
    const original = jobView({
      job_id: 'orig',
      trigger: 'assignment',
      status: 'failure',
      assignment_id: 'a-1',
      client_id: 'acme',
      domain_uuid: 'd-1',
      service_uuid: 's-1',
      input: { n: 1 },
      metadata: { assignment_key: 'default' },
    });
    expect(rerunOf(original)).toEqual({
      model_id: 'm',
      model_version: '1',
      job_type: 'inference',
      trigger: 'rerun',
      assignment_id: 'a-1',
      client_id: 'acme',
      domain_uuid: 'd-1',
      service_uuid: 's-1',
      rerun_of: 'orig',
      input: { n: 1 },
      metadata: { assignment_key: 'default' },
    });
  });

  it("keeps a cascade's trigger output, event and label, and drops them when there is no trigger output", () => {
    const cascade = { trigger_output: { score: 1 }, trigger_event: 'inference_complete', label: 'l', note: 'kept' };
    expect(rerunOf(jobView({ job_id: 'c', trigger: 'cascade', metadata: cascade })).metadata).toEqual(cascade);
    expect(rerunOf(jobView({ job_id: 'c', metadata: { trigger_event: 'x', label: 'l', note: 'kept' } })).metadata).toEqual({
      note: 'kept',
    });
  });

  it('refuses a re-run of an unfinished job before it reads anything else', async () => {
    const store = new MemoryJobStore();
    store.put(jobView({ job_id: 'busy', status: 'running' }));
    const knex = createKnex('postgres://nobody@127.0.0.1:1/none', { max: 1 });
    try {
      const jobs = createJobsService({
        outbox: createOutbox(() => new MemoryOutboxStore()),
        knex,
        gateway: fakeGateway(async () => ({ kind: 'closed' })),
        schemas,
        log: pino({ level: 'silent' }),
        completionWaitSeconds: 1,
        store,
      });
      const starts = createJobStarts({ outbox: createOutbox(() => new MemoryOutboxStore()), knex, jobs, rules: new FeatureRules(schemas) });
      await expect(starts.rerun(machine(['run_inference']), 'busy', { principal: machine([]), operation: 'rerun' })).rejects.toThrow(
        ConflictError,
      );
      await expect(starts.rerun(machine(['run_inference']), 'missing', { principal: machine([]), operation: 'rerun' })).rejects.toThrow(
        NotFoundError,
      );
    } finally {
      await knex.destroy();
    }
  });
});
