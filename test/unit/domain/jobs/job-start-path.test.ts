import pino from 'pino';
import type { Knex } from 'knex';
import { createJobsService } from '../../../../src/domain/jobs/jobs.service';
import { UserSchemaCompiler } from '../../../../src/domain/common/json-schemas';
import type { JobGateway } from '../../../../src/domain/ports/job-gateway.port';
import type { MachinePrincipal } from '../../../../src/auth/principal';
import { UnavailableError } from '../../../../src/errors';
import { guardedCanary } from '../../../../src/domain/assignments/guardrail';
import { revisesJob } from '../../../../src/domain/assignments/shadows';
import type { AssignmentRow } from '../../../../src/db/assignments.repository';
import { jobView } from '../../../helpers/memory-stores';
import { createOutbox } from '../../../../src/domain/webhooks';
import { MemoryOutboxStore } from '../../../helpers/memory-stores';

/**
 * The rules of the one job-start path and of what the outcome step reads once, without Postgres or Temporal: Temporal's
 * readiness is asked before any statement (so never inside a transaction that holds locks), and the assignment
 * revision the outcome step reads decides shadows and the canary guardrail without a statement of their own.
 */
const principal: MachinePrincipal = {
  kind: 'machine',
  subject: 'caller',
  clientId: 'caller',
  admin: false,
  permissions: new Set(),
  access: { access: 'platform', tenants: [] },
};

/** A database that must not be reached: every use of it is recorded and refused. */
function untouchableKnex(touched: string[]): Knex {
  const refuse = (what: string) => {
    touched.push(what);
    throw new Error(`the database was used: ${what}`);
  };
  return new Proxy(() => undefined, {
    apply: () => refuse('query builder'),
    get: (_target, key) => refuse(`knex.${String(key)}`),
  }) as unknown as Knex;
}

function gateway(readiness: JobGateway['readiness']): JobGateway & { asked: number } {
  const g = {
    asked: 0,
    launch: async () => 'started' as const,
    readiness: async () => {
      g.asked++;
      return readiness();
    },
    ping: async () => undefined,
    complete: async () => ({ kind: 'closed' as const }),
    cancel: async () => 'closed' as const,
    uiUrl: () => null,
    closedUnfinished: async () => [],
    awaitClosed: async () => 'closed' as const,
  };
  return g;
}

describe('the job-start path', () => {
  it('refuses with 503 while Temporal cannot start jobs, before any database statement or transaction', async () => {
    const touched: string[] = [];
    const g = gateway(async () => ({ ok: false, reason: 'Temporal is unavailable: down for the test' }));
    const jobs = createJobsService({
      outbox: createOutbox(() => new MemoryOutboxStore()),
      knex: untouchableKnex(touched),
      gateway: g,
      schemas: new UserSchemaCompiler(),
      log: pino({ level: 'silent' }),
      completionWaitSeconds: 1,
      store: { findJob: async () => undefined, confirmOutcome: async () => undefined },
    });
    let staged = 0;
    const started = jobs.start({ principal, operation: 'startInference' }, async () => {
      staged++;
      throw new Error('staged although Temporal is not ready');
    });
    await expect(started).rejects.toBeInstanceOf(UnavailableError);
    await expect(started).rejects.toThrow('jobs cannot start now: Temporal is unavailable: down for the test');
    expect({ asked: g.asked, staged, touched }).toEqual({ asked: 1, staged: 0, touched: [] });
  });

  it('stages a job no request asked for only with a readiness that says ok (the 503 rolls its transaction back)', async () => {
    const touched: string[] = [];
    const jobs = createJobsService({
      outbox: createOutbox(() => new MemoryOutboxStore()),
      knex: untouchableKnex(touched),
      gateway: gateway(async () => ({ ok: true })),
      schemas: new UserSchemaCompiler(),
      log: pino({ level: 'silent' }),
      completionWaitSeconds: 1,
      store: { findJob: async () => undefined, confirmOutcome: async () => undefined },
    });
    const trx = untouchableKnex(touched) as Knex.Transaction;
    const job = { model_id: 'm', model_version: '1', job_type: 'inference' as const, trigger: 'schedule' as const };
    await expect(jobs.stage(trx, job, { ok: false, reason: 'search attributes missing' })).rejects.toThrow(
      'jobs cannot start now: search attributes missing',
    );
    expect(touched).toEqual([]);
  });
});

describe('what the outcome step reads once', () => {
  const revision = (fields: Partial<AssignmentRow>): AssignmentRow =>
    ({
      assignment_id: 'a-canary',
      domain_uuid: 'd-1',
      service_uuid: null,
      assignment_key: 'default',
      model_id: 'm',
      model_version: '2',
      status: 'active',
      role: 'canary',
      settings: { primary_key: 'default', share: 10, guardrail: { max_failure_rate: 0.2, min_jobs: 5 } },
      ...fields,
    }) as AssignmentRow;
  const job = (fields: Parameters<typeof jobView>[0]) =>
    jobView({ assignment_id: 'a-canary', domain_uuid: 'd-1', trigger: 'assignment', ...fields });

  it('reads the revision of an inference job of an assignment, and of no cascade, shadow, training or direct job', () => {
    expect(revisesJob(job({ job_id: 'j1' }))).toBe(true);
    expect(revisesJob(job({ job_id: 'j2', trigger: 'service_init' }))).toBe(true);
    expect(revisesJob(job({ job_id: 'j3', trigger: 'cascade' }))).toBe(false);
    expect(revisesJob(job({ job_id: 'j4', trigger: 'shadow' }))).toBe(false);
    expect(revisesJob(job({ job_id: 'j5', job_type: 'training' }))).toBe(false);
    expect(revisesJob(job({ job_id: 'j6', assignment_id: null, trigger: 'direct' }))).toBe(false);
  });

  it('judges by the guardrail only a domain canary whose settings set one, for the job that ran on it', () => {
    expect(guardedCanary(job({ job_id: 'j1' }), revision({}))).toBe(true);
    expect(guardedCanary(job({ job_id: 'j2' }), revision({ settings: { primary_key: 'default', share: 10 } }))).toBe(false);
    expect(guardedCanary(job({ job_id: 'j3' }), revision({ role: 'shadow' }))).toBe(false);
    expect(guardedCanary(job({ job_id: 'j4' }), revision({ role: null }))).toBe(false);
    expect(guardedCanary(job({ job_id: 'j5' }), revision({ service_uuid: 's-1' }))).toBe(false);
    expect(guardedCanary(job({ job_id: 'j6', trigger: 'cascade' }), revision({}))).toBe(false);
    expect(guardedCanary(job({ job_id: 'j7' }), revision({ assignment_id: 'another revision' }))).toBe(false);
    expect(guardedCanary(job({ job_id: 'j8' }), undefined)).toBe(false);
  });
});
