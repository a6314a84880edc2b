import type { Connection } from '@temporalio/client';
import { TemporalConnection } from '../../../src/temporal/connection';
import Long from 'long';
import { Harness, uid } from '../../helpers/harness';
import { activeModel, eventually, initService, tenantWithDomain } from '../../helpers/fixtures';
import { testEnv } from '../../helpers/test-env';
import { untilJobStartsAreTaken } from '../../helpers/own-temporal';
import { ensureSearchAttributes, missingSearchAttributes } from '../../../src/temporal/search-attributes';
import { JOB_SEARCH_ATTRIBUTES, JOB_TRIGGER } from '../../../workflows/search-attributes';

/** A namespace of its own whose operator registered every job search attribute but JobTrigger. */
async function namespaceWithoutJobTrigger(): Promise<string> {
  const namespace = uid('ns');
  const connection = await TemporalConnection.open({ address: testEnv.temporalAddress });
  try {
    await connection.workflowService.registerNamespace({
      namespace,
      workflowExecutionRetentionPeriod: { seconds: Long.fromNumber(86400) },
    });
    await eventually(
      async () => {
        try {
          await connection.workflowService.listWorkflowExecutions({ namespace, pageSize: 1 });
          return true;
        } catch {
          return false;
        }
      },
      30000,
      'the namespace to be served',
    );
    await ensureSearchAttributes(connection, namespace, { register: true, wanted: JOB_SEARCH_ATTRIBUTES.filter((k) => k !== JOB_TRIGGER) });
    expect((await missingSearchAttributes(connection, namespace)).map((k) => k.name)).toEqual(['JobTrigger']);
  } finally {
    await connection.close();
  }
  return namespace;
}

describe('a Temporal namespace that lacks a job search attribute', () => {
  let h: Harness;
  let namespace: string;
  beforeAll(async () => {
    namespace = await namespaceWithoutJobTrigger();
    h = await Harness.start({ worker: false, env: { TEMPORAL_NAMESPACE: namespace } });
  });
  afterAll(() => h.stop());

  it('answers 503 on health and on job starts, naming the attribute, and writes nothing; the worker registers it and jobs run', async () => {
    const health = await h.api('GET', '/v2/health', { token: null });
    expect(health.status).toBe(503);
    expect(health.body.job_starts).toContain('JobTrigger (Keyword)');
    expect(health.body.job_starts).toContain('temporal operator search-attribute create');

    const modelId = await activeModel(h);
    const { base } = await tenantWithDomain(h, { modelId });
    const refused = await initService(h, base, 'svc-sa', { seats: 2 });
    expect(refused.status).toBe(503);
    expect(refused.body.message).toContain('JobTrigger');
    expect(await h.knex('services').where({ service_id: 'svc-sa' })).toHaveLength(0);
    expect(await h.knex('model_jobs').where({ model_id: modelId })).toHaveLength(0);
    const direct = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } });
    expect(direct.status).toBe(503);
    expect(await h.knex('model_jobs').where({ model_id: modelId })).toHaveLength(0);

    await h.startWorker(); // registers what is missing
    await eventually(async () => (await h.api('GET', '/v2/health', { token: null })).status === 200, 60000, 'health to turn ok');
    // The frontend checks starts against a cache of the namespace that lags a registration by seconds (a start refused
    // then fails its job): wait until a start carrying the attributes is taken, as a deploy would before sending work.
    await untilJobStartsAreTaken(testEnv.temporalAddress, namespace);
    const accepted = await initService(h, base, 'svc-sa', { seats: 2 });
    expect(accepted.status).toBe(202);
    await eventually(
      async () => (await h.api('GET', `${base}/service/svc-sa`)).body.status === 'available',
      60000, // a loaded CI machine runs the init job's tasks seconds apart
      'the service to become available',
    );
  });
});

describe('ensureSearchAttributes without permission to register', () => {
  it('stops with a message naming each missing attribute, its type and the command to create it', async () => {
    const denied = Object.assign(new Error('Request unauthorized.'), { code: 7 });
    const connection = {
      operatorService: {
        listSearchAttributes: async () => ({ customAttributes: { ModelId: 2 }, systemAttributes: {} }),
        addSearchAttributes: async () => {
          throw denied;
        },
      },
    } as unknown as Pick<Connection, 'operatorService'>;
    const attempt = ensureSearchAttributes(connection, 'managed-ns');
    await expect(attempt).rejects.toThrow('this service has no permission to register them');
    await expect(attempt).rejects.toThrow(
      'temporal operator search-attribute create --namespace managed-ns --name JobTrigger --type Keyword',
    );
    await expect(attempt).rejects.toThrow('ServiceId (Keyword)');
    await expect(attempt).rejects.not.toThrow('ModelId (Keyword)');
  });

  it('names the tcld command on Temporal Cloud', async () => {
    const connection = {
      operatorService: {
        listSearchAttributes: async () => ({ customAttributes: {}, systemAttributes: {} }),
        addSearchAttributes: async () => {
          throw Object.assign(new Error('12 UNIMPLEMENTED'), { code: 12, details: 'method not supported' });
        },
      },
    } as unknown as Pick<Connection, 'operatorService'>;
    const attempt = ensureSearchAttributes(connection, 'orders.a1b2c', { register: true, cloud: true });
    await expect(attempt).rejects.toThrow('this service has no permission to register them (method not supported)');
    await expect(attempt).rejects.toThrow(
      'tcld namespace search-attributes add --namespace orders.a1b2c --search-attribute "ModelId=Keyword" --search-attribute "ModelVersion=Keyword"',
    );
  });
});

describe('a namespace the service may not administer (TEMPORAL_REGISTER_SEARCH_ATTRIBUTES=off)', () => {
  let h: Harness;
  let namespace: string;
  beforeAll(async () => {
    namespace = await namespaceWithoutJobTrigger();
    h = await Harness.start({ worker: false, env: { TEMPORAL_NAMESPACE: namespace, TEMPORAL_REGISTER_SEARCH_ATTRIBUTES: 'off' } });
  });
  afterAll(() => h.stop());

  it('runs its worker, is not ready naming the attribute and the command, and once an operator adds it jobs run, none failed', async () => {
    await h.startWorker(); // checks, registers nothing, and runs
    expect((await missingSearchAttributes(h.temporal.connection, namespace)).map((k) => k.name)).toEqual(['JobTrigger']);
    const ready = await h.api('GET', '/v2/health/ready', { token: null });
    expect(ready.status).toBe(503);
    expect(ready.body.job_starts).toContain('lacks the job search attributes JobTrigger (Keyword)');
    expect(ready.body.job_starts).toContain(
      `temporal operator search-attribute create --namespace ${namespace} --name JobTrigger --type Keyword`,
    );

    const modelId = await activeModel(h);
    const { base } = await tenantWithDomain(h, { modelId });
    expect((await initService(h, base, 'svc-managed', { seats: 2 })).status).toBe(503);

    // The operator runs the command (here through the operator service, as the CLI does).
    const operator = await TemporalConnection.open({ address: testEnv.temporalAddress });
    try {
      await ensureSearchAttributes(operator, namespace);
    } finally {
      await operator.close();
    }
    await eventually(async () => (await h.api('GET', '/v2/health/ready', { token: null })).status === 200, 60000, 'readiness to turn ok');
    await untilJobStartsAreTaken(testEnv.temporalAddress, namespace);
    expect((await initService(h, base, 'svc-managed', { seats: 2 })).status).toBe(202);
    await eventually(
      async () => (await h.api('GET', `${base}/service/svc-managed`)).body.status === 'available',
      60000,
      'the service to become available',
    );
    expect(await h.knex('model_jobs').where({ model_id: modelId }).whereIn('status', ['failure', 'timed_out'])).toHaveLength(0);
  });
});
