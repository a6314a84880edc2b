import type { Connection } from '@temporalio/client';
import { TemporalConnection } from '../../src/temporal/connection';
import Long from 'long';
import { Harness, uid } from '../helpers/harness';
import { activeModel, eventually, initService, tenantWithDomain } from '../helpers/fixtures';
import { testEnv } from '../helpers/test-env';
import { untilJobStartsAreTaken } from '../helpers/own-temporal';
import { ensureSearchAttributes, missingSearchAttributes } from '../../src/temporal/search-attributes';
import { JOB_SEARCH_ATTRIBUTES, JOB_TRIGGER } from '../../workflows/search-attributes';

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
});
