import { Harness } from '../../../helpers/harness';
import { activeModel, tenantWithDomain, eventually } from '../../../helpers/fixtures';

const SIMPLE = [{ name: 'seats', json_schema: { type: 'integer' }, mandatory: true }];

describe('concurrent inits sharing one Idempotency-Key', () => {
  let h: Harness;
  const triggers: string[] = [];
  beforeAll(async () => {
    h = await Harness.start({ worker: true });
  });
  afterAll(async () => {
    for (const t of triggers) await h.knex.raw(`DROP TRIGGER IF EXISTS ${t} ON services`);
    await h.stop();
  });

  /**
   * Every write of the domain's service rows takes 300 ms, as on a busy database: later inits of the key then hold
   * the service row while the worker records the first job, the interleaving that deadlocked (2 of 50 got 500).
   */
  async function slowServiceWrites(domainUuid: string) {
    const name = `slow_services_${domainUuid.replace(/-/g, '_')}`;
    await h.knex.raw(
      `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NEW; END $$ LANGUAGE plpgsql`,
    );
    await h.knex.raw(`CREATE TRIGGER ${name} BEFORE INSERT OR UPDATE ON services FOR EACH ROW
      WHEN (NEW.domain_uuid = '${domainUuid}' AND NEW.status = 'in_progress') EXECUTE FUNCTION ${name}()`);
    triggers.push(name);
  }

  it('answers all 50 with the one job while the worker records it: no deadlock reaches the caller', async () => {
    const modelId = await activeModel(h, { features: SIMPLE });
    const { base, clientId, domainId } = await tenantWithDomain(h, { features: SIMPLE, modelId });
    const domain = await h.knex('domains').where({ client_id: clientId, domain_id: domainId }).first();
    await slowServiceWrites(domain.domain_uuid);
    const token = await h.adminToken();
    const body = { service_id: 'raced', departure_datetime: new Date(Date.now() + 86400000).toISOString(), static_features: { seats: 2 } };
    const responses = await Promise.all(
      Array.from({ length: 50 }, () => h.api('POST', `${base}/service/init`, { token, body, headers: { 'Idempotency-Key': 'one-key' } })),
    );
    expect(responses.filter((r) => r.status !== 202).map((r) => `${r.status} ${JSON.stringify(r.body)}`)).toEqual([]);
    const jobIds = new Set(responses.map((r) => r.body.job_id));
    expect(jobIds.size).toBe(1);
    const [jobId] = jobIds;
    const job = await eventually(
      async () => {
        const j = await h.knex('model_jobs').where({ job_id: jobId }).first();
        return j.status === 'success' && j;
      },
      20000,
      'the job to succeed',
    );
    expect(job.status).toBe('success');
  });
});
