import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { completionRoute } from './completion-route';
import { createJobHandler, httpHandler, lambdaHandler, MemoryStore, InvalidPayload, CompletionRefused } from '../src';

const job = (url: string, jobId = '019a0000-0000-7000-8000-000000000001') => ({
  job_id: jobId,
  job_type: 'inference',
  model_id: 'm',
  model_version: '1',
  input: { x: 2 },
  completion: { method: 'POST', path: '/complete', url, token: 'job-token' },
  traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
});

describe('the handler kit', () => {
  it('runs a job once and reports its output with the job token and traceparent; a duplicate is skipped', async () => {
    const service = await completionRoute([{ status: 200 }]);
    let runs = 0;
    const handle = lambdaHandler(async (j) => ({ doubled: (j.input.x as number) * 2, run: ++runs }));
    const [first, second] = await Promise.all([handle(job(service.url)), handle(job(service.url))]);
    expect([first.outcome, second.outcome].sort()).toEqual(['duplicate', 'reported']);
    expect(runs).toBe(1);
    expect(service.received).toHaveLength(1);
    expect(service.received[0].body).toEqual({ status: 'success', output: { doubled: 4, run: 1 } });
    expect(service.received[0].headers.authorization).toBe('Bearer job-token');
    expect(service.received[0].headers.traceparent).toBe(job(service.url).traceparent);
    expect((await handle(job(service.url))).outcome).toBe('duplicate');
    await service.close();
  });

  it('reports a thrown error as failure with its message', async () => {
    const service = await completionRoute([{ status: 200 }]);
    const result = await createJobHandler(() => {
      throw new Error('model weights missing');
    })(job(service.url));
    expect(result).toMatchObject({ outcome: 'reported', report: 'failure' });
    expect(service.received[0].body).toEqual({ status: 'failure', error: { message: 'model weights missing' } });
    await service.close();
  });

  it('waits out 503s for their Retry-After and reports once the service takes it', async () => {
    const service = await completionRoute([
      { status: 503, headers: { 'retry-after': '1' }, body: { success: false, message: 'Postgres is unavailable; retry later' } },
      { status: 503, headers: { 'retry-after': '1' } },
      { status: 200 },
    ]);
    const started = Date.now();
    const result = await createJobHandler(() => ({ ok: true }))(job(service.url));
    expect(result).toMatchObject({ outcome: 'reported', answer: { kind: 'recorded', status: 200 } });
    expect(service.received).toHaveLength(3);
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
    await service.close();
  });

  it('retries through network errors (nothing listening yet)', async () => {
    const service = await completionRoute([{ status: 200 }]);
    const port = new URL(service.url).port;
    await service.close();
    const pending = createJobHandler(() => ({ ok: true }), { initialDelayMs: 100 })(job(service.url));
    await new Promise((r) => setTimeout(r, 300)); // clock: the outage lasts this long, so the first attempts meet a closed port
    // The service comes back on the same port.
    const received: unknown[] = [];
    const back = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        received.push(req.url);
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    back.listen(Number(port), '127.0.0.1');
    await expect(pending).resolves.toMatchObject({ outcome: 'reported' });
    expect(received).toHaveLength(1);
    await new Promise<void>((r) => back.close(() => r()));
  });

  it('treats 409 (the job is already final) as an answer, and a 403 as a refusal that frees the job for a redelivery', async () => {
    const final = await completionRoute([{ status: 409, body: { success: false, message: 'the job was cancelled by x' } }]);
    const store = new MemoryStore();
    const result = await createJobHandler(() => ({}), { store })(job(final.url));
    expect(result).toMatchObject({ outcome: 'reported', answer: { kind: 'conflict', message: 'the job was cancelled by x' } });
    expect(final.received).toHaveLength(1);
    await final.close();

    const refused = await completionRoute([{ status: 403, body: { success: false, message: 'nope' } }]);
    const handle = createJobHandler(() => ({}), { store });
    const other = job(refused.url, '019a0000-0000-7000-8000-000000000002');
    await expect(handle(other)).rejects.toBeInstanceOf(CompletionRefused);
    expect(await store.claim(other.job_id, 60)).toBe(true); // released: a redelivery runs it again
    await refused.close();
  });

  it('refuses a payload that is not a job', async () => {
    const handle = createJobHandler(() => ({}));
    await expect(handle({ job_id: 'x' })).rejects.toBeInstanceOf(InvalidPayload);
    await expect(handle('not json')).rejects.toThrow('the payload is not JSON');
  });

  it('as an http handler: 401 for a bad signature, 202 for a signed job it then reports', async () => {
    const service = await completionRoute([{ status: 200 }]);
    const secret = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    const server = http.createServer(httpHandler(() => ({ served: true }), { secret }));
    server.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const body = JSON.stringify(job(service.url));
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = (key: string) =>
      `v1,${createHmac('sha256', Buffer.from(key.slice(6), 'base64'))
        .update(`id-1.${timestamp}.${body}`)
        .digest('base64')}`;
    const post = (sig: string) =>
      fetch(url, {
        method: 'POST',
        body,
        headers: { 'webhook-id': 'id-1', 'webhook-timestamp': String(timestamp), 'webhook-signature': sig },
      });
    expect((await post(signature(`whsec_${Buffer.alloc(32, 4).toString('base64')}`))).status).toBe(401);
    expect(service.received).toHaveLength(0);
    expect((await post(signature(secret))).status).toBe(202);
    while (service.received.length === 0) await new Promise((r) => setTimeout(r, 20));
    expect(service.received[0].body).toEqual({ status: 'success', output: { served: true } });
    await new Promise<void>((r) => server.close(() => r()));
    await service.close();
  });
});
