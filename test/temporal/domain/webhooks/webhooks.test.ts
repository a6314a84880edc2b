import { createCompatibility } from '../../../../src/domain/models/compatibility';
import pino from 'pino';
import { Harness, PLATFORM_CLIENT, uid } from '../../../helpers/harness';
import { activeModel, eventually, initService, tenantWithDomain } from '../../../helpers/fixtures';
import { startReceiver } from '../../../helpers/webhook-receiver';
import { spawnWorkerProcess, killHard } from '../../../helpers/worker-process';
import { testEnv } from '../../../helpers/test-env';
import { ownDatabase } from '../../../helpers/own-temporal';
import { verify } from '../../../../src/webhooks/signature';
import { webhookDispatcherFor } from '../../../../src/temporal/webhook-dispatcher';
import { createAssignmentsService } from '../../../../src/domain/assignments/assignments.service';
import { FeatureRules } from '../../../../src/domain/common/features';
import { UserSchemaCompiler } from '../../../../src/domain/common/json-schemas';
import { createOutbox } from '../../../../src/domain/webhooks';
import { outboxStore } from '../../../../src/db/outbox.repository';

const TENANT_A = uid('wh-a');
const TENANT_B = uid('wh-b');
// Short retries, so "fails three times, then succeeds" takes about a second; 127.0.0.1 is allowed for the receiver.
const WEBHOOK_ENV = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.1/32',
  WEBHOOK_RETRY_INITIAL_MS: '200',
  WEBHOOK_RETRY_MAX_INTERVAL_SECONDS: '1',
  WEBHOOK_ATTEMPT_TIMEOUT_SECONDS: '2',
  WEBHOOK_DISPATCH_INTERVAL_MS: '100',
  WEBHOOK_RELAUNCH_AFTER_SECONDS: '2',
};

describe('outbound webhooks', () => {
  let h: Harness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dispatcher: ReturnType<typeof webhookDispatcherFor>;
  let db: Awaited<ReturnType<typeof ownDatabase>>;

  beforeAll(async () => {
    // A database of its own: the dispatcher fans out every undispatched event of its database, and the shared one
    // holds thousands from the other files (a 500-job backlog, the fuzz walk), which it would read before this file's.
    db = await ownDatabase();
    h = await Harness.start({
      databaseUrl: db.url,
      worker: true,
      env: {
        ...WEBHOOK_ENV,
        MACHINE_CLIENTS: JSON.stringify({
          [PLATFORM_CLIENT]: { access: 'platform' },
          [TENANT_A]: { access: 'tenant', tenants: [TENANT_A] },
          [TENANT_B]: { access: 'tenant', tenants: [TENANT_B] },
        }),
      },
    });
    dispatcher = webhookDispatcherFor({ knex: h.knex, client: h.temporal, config: h.config, log: pino({ level: 'silent' }) });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await receiver.close();
    await h.stop();
    await db.drop();
  });

  async function webhook(clientId: string, path: string, eventTypes: string[], extra: Record<string, unknown> = {}) {
    const res = await h.api('POST', `/v2/clients/${clientId}/webhooks`, {
      body: { url: receiver.url(path), event_types: eventTypes, ...extra },
    });
    expect(res.status).toBe(201);
    return res.body as { webhook_id: string; secret: string };
  }

  const signed = (secret: string, r: { headers: Record<string, any>; body: string }) =>
    verify(
      secret,
      { id: r.headers['webhook-id'], timestamp: r.headers['webhook-timestamp'], signature: r.headers['webhook-signature'] },
      r.body,
    );

  it("delivers a job's completion signed with the endpoint's secret, and a service's events in order", async () => {
    const modelId = await activeModel(h);
    const { clientId, base } = await tenantWithDomain(h, { modelId });
    const hook = await webhook(clientId, 'job', ['job.succeeded', 'service.available', 'service.failed']);
    const init = await initService(h, base, 'SVC-1', { seats: 3 });
    expect(init.status).toBe(202);

    const jobEvent = await eventually(
      async () => receiver.requests('job').find((r) => r.json.type === 'job.succeeded'),
      20000,
      'job.succeeded',
    );
    expect(signed(hook.secret, jobEvent)).toBe(true);
    expect(signed('whsec_' + Buffer.alloc(32).toString('base64'), jobEvent)).toBe(false);
    expect(jobEvent.headers['content-type']).toBe('application/json');
    expect(jobEvent.json.data).toMatchObject({
      job_id: init.body.job_id,
      status: 'success',
      client_id: clientId,
      temporal_url: expect.stringContaining(`job-${init.body.job_id}`),
    });
    // The body is the job as the API shows it.
    const job = await h.api('GET', `/v2/jobs/${init.body.job_id}`);
    expect(jobEvent.json.data).toEqual(job.body);

    await eventually(async () => receiver.requests('job').some((r) => r.json.type === 'service.available'), 20000, 'service.available');
    for (const status of ['failed', 'available', 'failed']) {
      expect((await h.api('PUT', `${base}/service/SVC-1/new_status`, { body: { status } })).status).toBe(200);
    }
    const serviceEvents = () =>
      receiver
        .requests('job')
        .filter((r) => r.json.type.startsWith('service.'))
        .map((r) => r.json.type);
    await eventually(async () => serviceEvents().length === 4, 20000, 'four service events');
    expect(serviceEvents()).toEqual(['service.available', 'service.failed', 'service.available', 'service.failed']);

    // The delivery log names the same event id the receiver got.
    const log = await h.api('GET', `/v2/clients/${clientId}/webhooks/${hook.webhook_id}/deliveries?status=succeeded`);
    const delivery = log.body.items.find((d: any) => d.event_type === 'job.succeeded');
    expect(delivery).toMatchObject({ event_id: jobEvent.headers['webhook-id'], status: 'succeeded', attempts: 1, last_status_code: 200 });
    expect(delivery.attempt_log).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, error: null })]);
  });

  it('retries a receiver answering 500 three times and delivers on the fourth attempt with the same event id', async () => {
    const { clientId, domainId, base } = await tenantWithDomain(h, { modelId: await activeModel(h) });
    const hook = await webhook(clientId, 'flaky', ['assignment.changed'], { filter: { domain_id: domainId } });
    receiver.answer((path, n) => (path === '/flaky' && n <= 3 ? 500 : 200));
    expect(
      (
        await h.api('POST', `${base}/assignments`, {
          body: {
            assignment_key: 'extra',
            model_id: (await h.api('GET', `${base}/assignments/default`)).body.model_id,
            model_version: '1',
          },
        })
      ).status,
    ).toBe(201);

    const delivery = await eventually(
      async () => {
        const items = (await h.api('GET', `/v2/clients/${clientId}/webhooks/${hook.webhook_id}/deliveries`)).body.items;
        return items[0]?.status === 'succeeded' && items[0];
      },
      20000,
      'the delivery to succeed',
    );
    const requests = receiver.requests('flaky');
    expect(requests.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    expect(new Set(requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery.event_id]));
    expect(requests.every((r) => signed(hook.secret, r))).toBe(true);
    expect(delivery.attempt_log.map((a: any) => a.status_code)).toEqual([500, 500, 500, 200]);
    expect(delivery).toMatchObject({ attempts: 4, last_status_code: 200, next_attempt_at: null });
  });

  it('sends nothing for a change whose transaction rolled back', async () => {
    const { clientId, domainId, base } = await tenantWithDomain(h, { modelId: await activeModel(h) });
    await webhook(clientId, 'rollback', ['assignment.changed']);
    const modelId = (await h.api('GET', `${base}/assignments/default`)).body.model_id;
    // The commit fails after the upsert and its outbox row were written: a deferred constraint trigger refuses it.
    await h.knex.raw(
      `CREATE OR REPLACE FUNCTION webhook_test_refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused at commit by the test'; END $$ LANGUAGE plpgsql`,
    );
    await h.knex.raw(
      `CREATE CONSTRAINT TRIGGER webhook_test_refuse AFTER INSERT ON assignments DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (NEW.assignment_key = 'doomed') EXECUTE FUNCTION webhook_test_refuse()`,
    );
    try {
      const schemas = new UserSchemaCompiler();
      const assignments = createAssignmentsService({
        outbox: createOutbox(outboxStore),
        knex: h.knex,
        rules: new FeatureRules(schemas),
        compatibility: createCompatibility({ schemas }),
      });
      await expect(assignments.upsertDomain(clientId, domainId, 'doomed', { model_id: modelId, model_version: '1' })).rejects.toThrow(
        'refused at commit',
      );
    } finally {
      await h.knex.raw('DROP TRIGGER webhook_test_refuse ON assignments');
    }
    expect((await h.api('PUT', `${base}/assignments/kept`, { body: { model_id: modelId, model_version: '1' } })).status).toBe(201);
    // Every send comes from an outbox row: the rolled-back change left none, so none can ever be sent.
    const events = await h.knex('webhook_events').where({ client_id: clientId, type: 'assignment.changed' }).select('data');
    expect(events.map((e) => e.data.assignment_key).sort()).toEqual(['default', 'kept']);
    await eventually(async () => receiver.requests('rollback').length > 0, 20000, 'the later change');
    expect(receiver.requests('rollback').map((r) => r.json.data.assignment_key)).toEqual(['kept']);
  });

  it('refuses private, loopback and link-local targets that are not allow-listed, at creation and at send time', async () => {
    const { clientId } = await tenantWithDomain(h);
    for (const url of [
      'http://10.0.0.8/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://127.0.0.2:9/hook',
      'http://[::1]:9/hook',
      'http://192.168.1.1/x',
      // IPv6 forms that carry 127.0.0.1 or 169.254.169.254 (the allow-list's 127.0.0.1 covers only the mapped form).
      'https://[::127.0.0.1]/',
      'https://[64:ff9b::7f00:1]/',
      'https://[64:ff9b::a9fe:a9fe]/',
      'https://[::ffff:0:7f00:1]/',
      'https://[2002:7f00:1::1]/',
    ]) {
      const res = await h.api('POST', `/v2/clients/${clientId}/webhooks`, { body: { url, event_types: ['job.failed'] } });
      expect([url, res.status]).toEqual([url, 422]);
      expect(res.body.message).toMatch(/url refused: .*(private|loopback|link-local)/);
    }
    // An endpoint whose address became private after creation (DNS rebinding) is refused when sending: no retries.
    const hook = await webhook(clientId, 'rebound', ['job.failed']);
    await h.knex('webhook_endpoints').where({ webhook_id: hook.webhook_id }).update({ url: 'http://10.0.0.8/hook' });
    const ping = await h.api('POST', `/v2/clients/${clientId}/webhooks/${hook.webhook_id}/ping`);
    expect(ping.status).toBe(202);
    const failed = await eventually(
      async () => {
        const d = (await h.api('GET', `/v2/clients/${clientId}/webhooks/${hook.webhook_id}/deliveries/${ping.body.delivery_id}`)).body;
        return d.status === 'failed' && d;
      },
      20000,
      'the refused delivery',
    );
    expect(failed.attempts).toBe(1);
    expect(failed.last_error).toMatch(/10\.0\.0\.8 is a private address/);
    expect((await h.api('GET', `/v2/clients/${clientId}/webhooks/${hook.webhook_id}`)).body.status).toBe('failing');
  });

  it('lets a tenant see and manage only its own endpoints and deliveries', async () => {
    for (const id of [TENANT_A, TENANT_B]) expect((await h.api('PUT', `/v2/clients/${id}`, { body: {} })).status).toBeLessThan(300);
    const own = await webhook(TENANT_A, 'tenant-a', ['job.failed']);
    const other = await webhook(TENANT_B, 'tenant-b', ['job.failed']);
    const pinged = await h.api('POST', `/v2/clients/${TENANT_B}/webhooks/${other.webhook_id}/ping`);
    const tokenA = await h.idp.machine(TENANT_A, ['client_read', 'manage_webhooks']);
    const deliveries = `/webhooks/${other.webhook_id}/deliveries`;
    // Through its own tenant's path, another tenant's endpoint does not exist; the other tenant's path is closed.
    expect((await h.api('GET', `/v2/clients/${TENANT_A}${deliveries}`, { token: tokenA })).status).toBe(404);
    expect((await h.api('GET', `/v2/clients/${TENANT_A}${deliveries}/${pinged.body.delivery_id}`, { token: tokenA })).status).toBe(404);
    expect(
      (await h.api('POST', `/v2/clients/${TENANT_A}${deliveries}/${pinged.body.delivery_id}/redeliver`, { token: tokenA })).status,
    ).toBe(404);
    expect((await h.api('GET', `/v2/clients/${TENANT_B}${deliveries}`, { token: tokenA })).status).toBe(403);
    expect((await h.api('DELETE', `/v2/clients/${TENANT_A}/webhooks/${other.webhook_id}`, { token: tokenA })).status).toBe(404);
    expect((await h.api('GET', '/v2/webhooks', { token: tokenA })).status).toBe(403);
    const list = await h.api('GET', `/v2/clients/${TENANT_A}/webhooks`, { token: tokenA });
    expect(list.body.items.map((w: any) => w.webhook_id)).toEqual([own.webhook_id]);
    expect(list.body.items[0]).not.toHaveProperty('secret');
    // Registry events are for platform-wide endpoints.
    const registry = await h.api('POST', `/v2/clients/${TENANT_A}/webhooks`, {
      token: tokenA,
      body: { url: receiver.url('x'), event_types: ['version.status_changed'] },
    });
    expect(registry.status).toBe(422);
  });

  it('signs with the old and the new secret during the grace period after a rotation', async () => {
    const { clientId } = await tenantWithDomain(h);
    const hook = await webhook(clientId, 'rotation', ['job.failed']);
    const rotated = await h.api('POST', `/v2/clients/${clientId}/webhooks/${hook.webhook_id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(hook.secret);
    await h.api('POST', `/v2/clients/${clientId}/webhooks/${hook.webhook_id}/ping`);
    const ping = await eventually(async () => receiver.requests('rotation')[0], 20000, 'the ping');
    expect(ping.json).toMatchObject({ type: 'webhook.test', data: { webhook_id: hook.webhook_id } });
    expect(ping.headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    expect(signed(rotated.body.secret, ping)).toBe(true);
    expect(signed(hook.secret, ping)).toBe(true);
  });

  it('delivers after the worker is killed while the delivery waits for its next retry', async () => {
    // The production worker process (its dispatcher on) replaces this harness's worker and dispatcher.
    await dispatcher?.stop();
    dispatcher = undefined;
    await h.stopWorker();
    const env = {
      ...WEBHOOK_ENV,
      WEBHOOK_DISPATCHER: 'on',
      DATABASE_URL: db.url,
      TEMPORAL_ADDRESS: testEnv.temporalAddress,
      TEMPORAL_TASK_QUEUE: h.config.temporal.taskQueue,
      WORKER_SHUTDOWN_GRACE_SECONDS: '0',
      // Slower retries: the worker is killed between two attempts.
      WEBHOOK_RETRY_INITIAL_MS: '1000',
    };
    let worker = await spawnWorkerProcess(env);
    try {
      const { clientId, base } = await tenantWithDomain(h, { modelId: await activeModel(h) });
      const hook = await webhook(clientId, 'restart', ['assignment.changed']);
      let down = true;
      receiver.answer((path) => (path === '/restart' && down ? 503 : 200));
      const modelId = (await h.api('GET', `${base}/assignments/default`)).body.model_id;
      expect((await h.api('PUT', `${base}/assignments/restart`, { body: { model_id: modelId, model_version: '1' } })).status).toBe(201);
      await eventually(async () => receiver.requests('restart').length >= 2, 20000, 'two failed attempts');
      await killHard(worker);
      down = false;
      worker = await spawnWorkerProcess(env);
      const delivered = await eventually(
        async () => {
          const items = (await h.api('GET', `/v2/clients/${clientId}/webhooks/${hook.webhook_id}/deliveries`)).body.items;
          return items[0]?.status === 'succeeded' && items[0];
        },
        30000,
        'the delivery after the restart',
      );
      const requests = receiver.requests('restart');
      expect(requests.at(-1)!.status).toBe(200);
      expect(new Set(requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivered.event_id]));
      expect(delivered.attempts).toBeGreaterThanOrEqual(3);
    } finally {
      await killHard(worker);
    }
  });
});
