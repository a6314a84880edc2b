import type { Knex } from 'knex';
import { Harness, uid } from '../../../helpers/harness';
import { activeModel, addVersion, eventually, FEATURES } from '../../../helpers/fixtures';
import { deleteModel, deleteVersion } from '../../../../src/db/models.repository';

/**
 * A direct inference start and a deletion of its version (or model) are ordered by row locks, as a training start
 * and a deletion are: whichever locks first, the other waits, so a deletion never tombstones a version between the
 * start's check and its job row. Each order is made by holding one side's transaction open in the test.
 */
describe('direct inference start against a concurrent deletion', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start();
  });
  afterAll(() => h.stop());

  const backendPid = async (trx: Knex.Transaction): Promise<number> => (await trx.raw('select pg_backend_pid() as pid')).rows[0].pid;
  /** The backend that waits for a lock `blocker` holds, once there is one. */
  const waiterOn = (blocker: number, what: string) =>
    eventually(
      async () =>
        (await h.knex.raw('select pid from pg_stat_activity where ? = any(pg_blocking_pids(pid))', [blocker])).rows[0]?.pid as number,
      20000,
      what,
    );
  const jobsOf = async (modelId: string, version: string) =>
    h.knex('model_jobs').where({ model_id: modelId, model_version: version }).count();

  it.each([
    ['version', (trx: Knex.Transaction, modelId: string) => trx('model_versions').where({ model_id: modelId, version: '2' }).forUpdate()],
    ['model', (trx: Knex.Transaction, modelId: string) => trx('models').where({ id: modelId }).forUpdate()],
  ])(
    'a start that comes while a deletion of its %s holds the lock waits for it, then answers 404 and writes no job',
    async (what, lock) => {
      const modelId = await activeModel(h);
      await addVersion(h, modelId, '2', FEATURES);
      const trx = await h.knex.transaction();
      try {
        // The lock the deletion takes first (retirement: the version, or the model, for update).
        await lock(trx, modelId);
        const start = h.api('POST', `/v2/models/${modelId}/versions/2/infer`, { body: { input: {} } });
        await waiterOn(await backendPid(trx), 'the start to wait for the deletion');
        if (what === 'version') await deleteVersion(trx, modelId, '2', 'test');
        else await deleteModel(trx, modelId, 'test');
        await trx.commit();
        const res = await start;
        expect(res.status).toBe(404);
        expect(res.body.message).toContain(what === 'version' ? 'version 2' : `model ${modelId}`);
      } finally {
        if (!trx.isCompleted()) await trx.rollback();
      }
      expect(Number((await jobsOf(modelId, '2'))[0].count)).toBe(0);
    },
  );

  it('a deletion that comes while a start holds the version waits for its job row, then refuses with 409 naming the job', async () => {
    const modelId = await activeModel(h);
    await addVersion(h, modelId, '2', FEATURES);
    // The owner under which the API keys this caller's direct-inference Idempotency-Keys.
    const probe = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, {
      body: { input: {} },
      headers: { 'Idempotency-Key': uid('probe') },
    });
    expect(probe.status).toBe(202);
    const owner = (await h.knex('model_jobs').where({ job_id: probe.body.job_id }).first('idempotency_owner')).idempotency_owner;

    // An uncommitted job row under the key the start will use holds the start at its insert, after its version check.
    const key = uid('key');
    const trx = await h.knex.transaction();
    try {
      await trx('model_jobs').insert({
        job_id: uid('held'),
        model_id: modelId,
        model_version: '1',
        job_type: 'inference',
        trigger: 'direct',
        idempotency_owner: owner,
        idempotency_key: key,
      });
      const start = h.api('POST', `/v2/models/${modelId}/versions/2/infer`, { body: { input: {} }, headers: { 'Idempotency-Key': key } });
      const starter = await waiterOn(await backendPid(trx), 'the start to reach its job row');
      const deletion = h.api('DELETE', `/v2/models/${modelId}/versions/2`);
      // The deletion waits for the start's lock on the version: it cannot decide before the job row exists.
      await waiterOn(starter, 'the deletion to wait for the start');
      await trx.rollback();
      const started = await start;
      expect(started.status).toBe(202);
      const refused = await deletion;
      expect(refused.status).toBe(409);
      expect(refused.body.message).toContain(started.body.job_id);
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
    expect((await h.api('GET', `/v2/models/${modelId}/versions/2`)).status).toBe(200);
  });
});
