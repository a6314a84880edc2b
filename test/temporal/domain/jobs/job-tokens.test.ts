import { Harness } from '../../../helpers/harness';
import { activeModel, ECHO_HANDLERS } from '../../../helpers/fixtures';
import { startReceiver } from '../../../helpers/webhook-receiver';
import { createJobTokens } from '../../../../src/auth/job-tokens';

/** Jobs on an async `http` handler that accepts and never reports: the test reports, with the token it was sent. */
describe('job-scoped completion tokens', () => {
  let h: Harness;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let modelId: string;
  let manualModel: string;
  beforeAll(async () => {
    h = await Harness.start({ worker: true, env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.1/32' } });
    receiver = await startReceiver();
    modelId = await activeModel(h, {
      handlers: { training: ECHO_HANDLERS.training, inference: { type: 'http', url: receiver.url('jobs'), mode: 'async' } },
    });
    manualModel = await activeModel(h, {
      handlers: { training: ECHO_HANDLERS.training, inference: { type: 'in_process', name: 'manual' } },
    });
  });
  afterAll(async () => {
    await receiver.close();
    await h.stop();
  });

  /** A running job and the completion the handler was told: its path and token. */
  async function dispatched(): Promise<{ jobId: string; path: string; token: string }> {
    const res = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: { n: 1 } } });
    const jobId = res.body.job_id as string;
    for (;;) {
      const call = receiver.requests('jobs').find((r) => (r.json as unknown as { job_id: string }).job_id === jobId);
      if (call) {
        const { completion } = call.json as unknown as { completion: { path: string; token: string } };
        return { jobId, path: completion.path, token: completion.token };
      }
      await h.api('GET', `/v2/jobs/${jobId}?wait=1`);
    }
  }

  async function runningManualJob(): Promise<string> {
    const res = await h.api('POST', `/v2/models/${manualModel}/versions/1/infer`, { body: { input: {} } });
    const jobId = res.body.job_id as string;
    while ((await h.api('GET', `/v2/jobs/${jobId}`)).body.status !== 'running') await h.api('GET', `/v2/jobs/${jobId}?wait=1`);
    return jobId;
  }

  it('completes its own job in place of an identity-provider token; a repeat gets the same answer', async () => {
    const { jobId, path, token } = await dispatched();
    const done = await h.api('POST', path, { token, body: { status: 'success', output: { score: 1 } } });
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ job_id: jobId, status: 'success' });
    expect((await h.api('GET', `/v2/jobs/${jobId}`)).body).toMatchObject({ status: 'success', output: { score: 1 } });
    expect((await h.api('POST', path, { token, body: { status: 'success', output: { score: 1 } } })).status).toBe(200);
  });

  it('cannot complete another job', async () => {
    const { token } = await dispatched();
    const other = await runningManualJob();
    const res = await h.api('POST', `/v2/models/${manualModel}/versions/1/jobs/${other}/complete`, { token, body: { status: 'success' } });
    expect(res.status).toBe(403);
    expect(res.body.message).toMatch(/completes job .* only/);
    expect((await h.api('GET', `/v2/jobs/${other}`)).body.status).toBe('running');
  });

  it('is refused on a finished job (409), as any completion is', async () => {
    const { jobId, path, token } = await dispatched();
    expect((await h.api('POST', `/v2/jobs/${jobId}/cancel`, { body: { reason: 'test' } })).status).toBe(200);
    const res = await h.api('POST', path, { token, body: { status: 'success' } });
    expect(res.status).toBe(409);
    const failed = await h.api('POST', path, { token, body: { status: 'failure', error: { message: 'late' } } });
    expect(failed.status).toBe(409);
  });

  it('is accepted by no other route', async () => {
    const { jobId, token } = await dispatched();
    for (const [method, path] of [
      ['GET', `/v2/jobs/${jobId}`],
      ['POST', `/v2/jobs/${jobId}/cancel`],
      ['GET', `/v2/models/${modelId}`],
      ['GET', '/v2/clients'],
    ] as const) {
      const res = await h.api(method, path, { token, ...(method === 'POST' ? { body: {} } : {}) });
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      expect(res.body.message).toMatch(/job token is accepted only by the completion route/);
    }
    expect((await h.api('GET', `/v2/jobs/${jobId}`)).body.status).toBe('running');
  });

  it('is refused when altered or signed with another key (401)', async () => {
    const { jobId, path, token } = await dispatched();
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const forged = `${header}.${Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 3600 })).toString('base64url')}.${signature}`;
    expect((await h.api('POST', path, { token: forged, body: { status: 'success' } })).status).toBe(401);
    const foreign = await createJobTokens([{ kid: 'test', secret: new Uint8Array(32).fill(7) }]).issue(
      jobId,
      new Date(Date.now() + 60_000),
    );
    const res = await h.api('POST', path, { token: foreign!, body: { status: 'success' } });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/invalid job token/);
  });

  it('is refused once past its expiry', async () => {
    const { jobId, path } = await dispatched();
    const [key] = h.config.jobs.tokenKeys;
    const expired = await createJobTokens([key], 0).issue(jobId, new Date(Date.now() - 10_000));
    const res = await h.api('POST', path, { token: expired!, body: { status: 'success' } });
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/expired/);
  });
});
