import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Harness } from '../../helpers/harness';
import { activeModel, ECHO_HANDLERS } from '../../helpers/fixtures';
import { startModelServer, predict, type ModelServer } from '../../../src/dev/model-server';
import { verify } from '../../../src/webhooks/signature';
import { httpHandler } from '../../../handler-kit/src';
import { testSecretBox } from '../../helpers/secret-keys';

const LOOPBACK_ALLOWED = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.1/32',
  JOB_COMPLETION_DEADLINE_SECONDS: '60',
};

/** A model whose inference runs on an `http` handler; answers its id and the secret shown once at creation. */
async function httpModel(h: Harness, handler: Record<string, unknown>, contracts?: unknown) {
  const id = await activeModel(h, {
    handlers: { training: ECHO_HANDLERS.training, inference: { type: 'http', ...handler } },
    handler_contracts: contracts,
  });
  return id;
}

async function createHttpModel(h: Harness, id: string, handler: Record<string, unknown>, contracts?: unknown) {
  return h.api('POST', '/v2/models', {
    body: {
      id,
      name: id,
      description: 'served over http',
      metadata: {},
      handlers: { training: ECHO_HANDLERS.training, inference: { type: 'http', ...handler } },
      ...(contracts ? { handler_contracts: contracts } : {}),
    },
  });
}

async function infer(h: Harness, modelId: string, input: Record<string, unknown>) {
  const res = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input } });
  expect(res.status).toBe(202);
  return res.body.job_id as string;
}

async function finalJob(h: Harness, jobId: string) {
  for (;;) {
    const res = await h.api('GET', `/v2/jobs/${jobId}?wait=30`);
    if (!['pending', 'running'].includes(res.body.status)) return res.body;
  }
}

describe('http handlers', () => {
  let h: Harness;
  let server: ModelServer;
  beforeAll(async () => {
    h = await Harness.start({ worker: true, env: LOOPBACK_ALLOWED });
    server = await startModelServer();
  });
  afterAll(async () => {
    await server.close();
    await h.stop();
  });

  it('shows the signing secret once, at creation, never in reads, and stores it sealed', async () => {
    const id = `http-secret-${Date.now()}`;
    const created = await createHttpModel(h, id, { url: `${server.url}/sync`, mode: 'sync' });
    expect(created.status).toBe(201);
    expect(created.body.http_handler_secret).toMatch(/^whsec_/);
    const read = await h.api('GET', `/v2/models/${id}`);
    expect(read.body).not.toHaveProperty('http_handler_secret');
    const renamed = await h.api('PUT', `/v2/models/${id}`, { body: { name: 'renamed', handlers: created.body.model.handlers } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).not.toHaveProperty('http_handler_secret');

    const secret = created.body.http_handler_secret as string;
    const row = await h.knex('models').where({ id }).first();
    expect(JSON.stringify(row)).not.toContain(secret.slice('whsec_'.length));
    expect(testSecretBox.open(row.http_handler_secret_sealed)).toBe(secret);
    await expect(h.knex('models').where({ id }).update({ http_handler_secret_sealed: secret })).rejects.toThrow(
      /models_http_handler_secret_sealed/,
    );
  });

  it('gives a model its secret in the update that adds its first http handler', async () => {
    const id = await activeModel(h);
    const handlers = { training: ECHO_HANDLERS.training, inference: { type: 'http', url: `${server.url}/sync`, mode: 'sync' } };
    const updated = await h.api('PUT', `/v2/models/${id}`, { body: { handlers } });
    expect(updated.status).toBe(200);
    expect(updated.body.http_handler_secret).toMatch(/^whsec_/);
  });

  it('a sync handler completes the job with its answer, signed with the model secret', async () => {
    const id = `http-sync-${Date.now()}`;
    const created = await createHttpModel(h, id, { url: `${server.url}/sync`, mode: 'sync' });
    expect(await h.api('PUT', `/v2/models/${id}/versions/1/new_status`, { body: { status: 'active' } })).toMatchObject({ status: 200 });
    const secret = created.body.http_handler_secret as string;
    const jobId = await infer(h, id, { seats: 180, legs: 2 });
    const job = await finalJob(h, jobId);
    expect(job).toMatchObject({ status: 'success', output: predict({ seats: 180, legs: 2 }) });

    const call = server.calls.find((c) => c.body.includes(jobId))!;
    const headers = {
      id: String(call.headers['webhook-id']),
      timestamp: String(call.headers['webhook-timestamp']),
      signature: String(call.headers['webhook-signature']),
    };
    expect(headers.id).toBe(jobId);
    expect(verify(secret, headers, call.body)).toBe(true);
    expect(verify(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, headers, call.body)).toBe(false);
    expect(JSON.parse(call.body)).toMatchObject({
      job_id: jobId,
      input: { seats: 180, legs: 2 },
      completion: { token: expect.any(String) },
    });
  });

  it('a sync answer that breaks the output_schema fails the job, naming the contract', async () => {
    const contract = { inference: { output_schema: { type: 'object', required: ['label'] } } };
    const id = await httpModel(h, { url: `${server.url}/sync`, mode: 'sync' }, contract);
    const job = await finalJob(h, await infer(h, id, { seats: 3 }));
    expect(job.status).toBe('failure');
    expect(job.error.message).toMatch(/does not match the output_schema of its handler contract.*label/);
  });

  it('an async handler is completed through the completion route with its job token', async () => {
    const id = await httpModel(h, { url: `${server.url}/async`, mode: 'async' });
    const jobId = await infer(h, id, { seats: 40 });
    const job = await finalJob(h, jobId);
    expect(job).toMatchObject({ status: 'success', output: predict({ seats: 40 }) });
  });

  it('a handler-kit server in async mode verifies the call with the model secret and completes with the job token', async () => {
    const id = `http-kit-${Date.now()}`;
    let secret = '';
    const kit = http.createServer((req, res) => httpHandler((job) => ({ kit: true, seats: job.input.seats }), { secret })(req, res));
    kit.listen(0, '127.0.0.1');
    await new Promise((r) => kit.once('listening', r));
    const created = await createHttpModel(h, id, { url: `http://127.0.0.1:${(kit.address() as AddressInfo).port}/`, mode: 'async' });
    secret = created.body.http_handler_secret;
    expect(await h.api('PUT', `/v2/models/${id}/versions/1/new_status`, { body: { status: 'active' } })).toMatchObject({ status: 200 });
    const job = await finalJob(h, await infer(h, id, { seats: 7 }));
    expect(job).toMatchObject({ status: 'success', output: { kit: true, seats: 7 } });
    await new Promise<void>((r) => kit.close(() => r()));
  });

  describe('retries follow the answer', () => {
    let flaky: http.Server;
    let url: string;
    const answers = new Map<string, number[]>();
    beforeAll(async () => {
      flaky = http.createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', () => {
          const script = answers.get(req.url!) ?? [200];
          const status = script.length > 1 ? script.shift()! : script[0];
          if (status === 0) return; // no answer: the caller's response time-out ends the attempt
          res
            .writeHead(status, { 'content-type': 'application/json' })
            .end(JSON.stringify(status < 300 ? { ok: true } : { message: `no (${status})` }));
        });
      });
      flaky.listen(0, '127.0.0.1');
      await new Promise((r) => flaky.once('listening', r));
      url = `http://127.0.0.1:${(flaky.address() as AddressInfo).port}`;
    });
    afterAll(() => {
      flaky.closeAllConnections();
      return new Promise<void>((r) => flaky.close(() => r()));
    });

    it('a 503 is retried and the next answer completes the job', async () => {
      answers.set('/twice-unavailable', [503, 503, 200]);
      const id = await httpModel(h, { url: `${url}/twice-unavailable`, mode: 'sync' });
      const job = await finalJob(h, await infer(h, id, {}));
      expect(job).toMatchObject({ status: 'success', output: { ok: true } });
      expect(answers.get('/twice-unavailable')).toEqual([200]);
    });

    it('a call with no answer within timeout_seconds is retried', async () => {
      answers.set('/silent-once', [0, 200]);
      const id = await httpModel(h, { url: `${url}/silent-once`, mode: 'sync', timeout_seconds: 1 });
      const job = await finalJob(h, await infer(h, id, {}));
      expect(job).toMatchObject({ status: 'success', output: { ok: true } });
      expect(answers.get('/silent-once')).toEqual([200]);
    });

    it('a 4xx is final: the job fails with the server message, without a retry', async () => {
      answers.set('/refuses', [422, 200]);
      const id = await httpModel(h, { url: `${url}/refuses`, mode: 'sync' });
      const job = await finalJob(h, await infer(h, id, {}));
      expect(job.status).toBe('failure');
      expect(job.error.message).toMatch(/answered 422: no \(422\)/);
      expect(answers.get('/refuses')).toEqual([200]); // the 200 was never asked for
    });
  });

  it('refuses a handler url on a private address (SSRF policy)', async () => {
    const res = await createHttpModel(h, `http-private-${Date.now()}`, { url: 'http://10.1.2.3/predict', mode: 'sync' });
    expect(res.status).toBe(422);
    expect(res.body.message).toMatch(/handlers.inference.url refused: 10.1.2.3 is a private address/);
  });
});
