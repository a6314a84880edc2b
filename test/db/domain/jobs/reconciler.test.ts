import pino from 'pino';
import type { Knex } from 'knex';
import { createKnex } from '../../../../src/db/knex';
import { insertModel } from '../../../../src/db/models.repository';
import { insertJob, findJob } from '../../../../src/db/jobs.repository';
import { markUnconfirmed } from '../../../../src/db/unconfirmed-outcomes.repository';
import { startReconciler } from '../../../../src/domain/jobs/launch/reconciler';
import { WorkflowStartRefused, type CompletionDelivery, type JobGateway } from '../../../../src/domain/ports/job-gateway.port';
import type { CompletionReport } from '../../../../workflows/definitions';
import { uuidv7 } from '../../../../src/ids';
import { ownDatabase } from '../../../helpers/own-temporal';
import { createOutbox } from '../../../../src/domain/webhooks';
import { outboxStore } from '../../../../src/db/outbox.repository';

/** A gateway that records what the reconciler asks of Temporal and answers completions as told. */
function standInGateway(answer: (jobId: string) => CompletionDelivery['kind'], temporalUp = true, startFails = new Map<string, Error>()) {
  const launched: string[] = [];
  const completed: { jobId: string; report: CompletionReport }[] = [];
  const gateway: JobGateway = {
    async launch(job) {
      const failure = startFails.get(job.job_id);
      if (failure) throw failure;
      launched.push(job.job_id);
      return 'started';
    },
    async complete(jobId, report) {
      completed.push({ jobId, report });
      const kind = answer(jobId);
      if (kind === 'answered')
        return { kind, result: { job_id: jobId, model_id: 'm', model_version: '1', status: report.status, triggered_events: [] } };
      if (kind === 'conflict') return { kind, message: 'refused' };
      if (kind === 'closed') return { kind };
      return { kind, cause: new Error('no answer') };
    },
    readiness: async () => ({ ok: true }),
    ping: async () => {
      if (!temporalUp) throw new Error('Temporal is unavailable');
    },
    cancel: async () => 'closed',
    uiUrl: () => null,
    closedUnfinished: async () => [],
    awaitClosed: async () => 'closed',
  };
  return { gateway, launched, completed };
}

/** The reconciler's passes against a database of this file's own: they take every row they find. */
describe('the reconciler', () => {
  let db: { url: string; drop(): Promise<void> };
  let knex: Knex;
  const modelId = 'reconciled';
  beforeAll(async () => {
    db = await ownDatabase();
    knex = createKnex(db.url, { max: 3 });
    await insertModel(knex, { id: modelId, name: modelId, description: '', metadata: {}, handlers: {}, handler_contracts: null } as any);
    await knex('model_versions').insert({ model_id: modelId, version: '1', status: 'active' });
  });
  afterAll(async () => {
    await knex?.destroy();
    await db?.drop();
  });

  async function job(fields: Record<string, unknown> = {}): Promise<string> {
    const { row } = await insertJob(knex, {
      job_id: uuidv7(),
      model_id: modelId,
      model_version: '1',
      job_type: 'inference',
      trigger: 'direct',
    });
    if (Object.keys(fields).length) await knex('model_jobs').where({ job_id: row.job_id }).update(fields);
    return row.job_id;
  }

  const quiet = pino({ level: 'silent' });

  it('starts every pending row past its grace in one pass, more than one batch of them', async () => {
    const old = new Date(Date.now() - 120000);
    const pending = await Promise.all(Array.from({ length: 230 }, () => job({ created_at: old })));
    const fresh = await job();
    const { gateway, launched } = standInGateway(() => 'answered');
    const reconciler = startReconciler({
      outbox: createOutbox(outboxStore),
      knex,
      gateway,
      log: quiet,
      everyMs: 3600000,
      redeliverEveryMs: 3600000,
    });
    try {
      await reconciler.runOnce();
    } finally {
      await reconciler.stop();
    }
    expect([...launched].sort()).toEqual([...pending].sort());
    expect(launched).not.toContain(fresh);
  });

  it('goes on past a start Temporal refuses for good (marked failed) and a transient one (left pending)', async () => {
    const older = new Date(Date.now() - 180000);
    const old = new Date(Date.now() - 120000);
    // The oldest rows come first in a pass: the two failing starts are met before any other.
    const refused = await job({ created_at: older });
    const flaky = await job({ created_at: older });
    const others = await Promise.all(Array.from({ length: 5 }, () => job({ created_at: old })));
    const fails = new Map<string, Error>([
      [refused, new WorkflowStartRefused('Temporal refused to start the job: namespace not found', { cause: new Error('NOT_FOUND') })],
      [flaky, new Error('14 UNAVAILABLE: connection refused')],
    ]);
    const { gateway, launched } = standInGateway(() => 'answered', true, fails);
    const reconciler = startReconciler({
      outbox: createOutbox(outboxStore),
      knex,
      gateway,
      log: quiet,
      everyMs: 3600000,
      redeliverEveryMs: 3600000,
    });
    try {
      await reconciler.runOnce();
    } finally {
      await reconciler.stop();
    }
    // Rows of the other tests are still pending too: look at this test's own.
    const mine = new Set([refused, flaky, ...others]);
    expect(launched.filter((id) => mine.has(id)).sort()).toEqual([...others].sort());
    const refusedRow = await findJob(knex, refused);
    expect(refusedRow?.status).toBe('failure');
    expect(refusedRow?.error).toMatchObject({ reason: 'start_refused' });
    expect((await findJob(knex, flaky))?.status).toBe('pending');
  });

  it('reports each outcome Temporal did not confirm to its workflow again, as recorded, and keeps those no workflow answered', async () => {
    const old = new Date(Date.now() - 60000);
    const success = await job({ status: 'success', output: JSON.stringify({ score: 2 }) });
    const failure = await job({ status: 'failure', error: JSON.stringify({ reason: 'oom' }) });
    const closed = await job({ status: 'success', output: JSON.stringify({}) });
    const unanswered = await job({ status: 'success', output: JSON.stringify({}) });
    const recent = await job({ status: 'success', output: JSON.stringify({}) });
    for (const id of [success, failure, closed, unanswered, recent]) await markUnconfirmed(knex, id);
    await knex('unconfirmed_outcomes').whereNot({ job_id: recent }).update({ recorded_at: old });

    const { gateway, completed } = standInGateway((id) => (id === closed ? 'closed' : id === unanswered ? 'unanswered' : 'answered'));
    const reconciler = startReconciler({
      outbox: createOutbox(outboxStore),
      knex,
      gateway,
      log: quiet,
      everyMs: 3600000,
      redeliverEveryMs: 3600000,
    });
    try {
      await reconciler.redeliverOnce();
      // The one no workflow answered waits its 10 s again before the next try, behind the others.
      await reconciler.redeliverOnce();
    } finally {
      await reconciler.stop();
    }
    expect(completed.filter((c) => c.jobId === unanswered)).toHaveLength(1);
    expect(completed).toEqual(
      expect.arrayContaining([
        { jobId: success, report: { status: 'success', output: { score: 2 } } },
        { jobId: failure, report: { status: 'failure', error: { reason: 'oom' } } },
        { jobId: closed, report: { status: 'success', output: {} } },
        { jobId: unanswered, report: { status: 'success', output: {} } },
      ]),
    );
    expect(completed.map((c) => c.jobId)).not.toContain(recent);
    expect((await knex('unconfirmed_outcomes').pluck('job_id')).sort()).toEqual([unanswered, recent].sort());
    expect((await findJob(knex, success))?.status).toBe('success');
    await knex('unconfirmed_outcomes').delete();
  });

  it('tries no outcome, and puts none back, while Temporal does not answer', async () => {
    const lost = await job({ status: 'success', output: JSON.stringify({}) });
    await markUnconfirmed(knex, lost);
    await knex('unconfirmed_outcomes').update({ recorded_at: new Date(Date.now() - 60000) });
    const { gateway, completed } = standInGateway(() => 'answered', false);
    const reconciler = startReconciler({
      outbox: createOutbox(outboxStore),
      knex,
      gateway,
      log: quiet,
      everyMs: 3600000,
      redeliverEveryMs: 3600000,
    });
    try {
      await reconciler.redeliverOnce();
    } finally {
      await reconciler.stop();
    }
    expect(completed).toEqual([]);
    expect(await knex('unconfirmed_outcomes').select('job_id', 'attempted_at')).toEqual([{ job_id: lost, attempted_at: null }]);
  });
});
