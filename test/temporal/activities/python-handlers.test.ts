import { spawn, type ChildProcess } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { Harness, uid } from '../../helpers/harness';
import { ECHO_HANDLERS, eventually } from '../../helpers/fixtures';
import { AwsStandIn, TEST_AWS } from '../../helpers/aws-stand-in';

const PYTHON = process.env.MOS_PYTHON ?? '/usr/bin/python3';
const SCRIPT = path.resolve(__dirname, '../../../handler-kit-python/tests/handlers_for_service.py');

/** The Python kit's handlers (handler-kit-python/tests/handlers_for_service.py) as a child process on loopback. */
async function startPythonHandlers() {
  const state = mkdtempSync(path.join(os.tmpdir(), 'mos-python-handlers-'));
  mkdirSync(path.join(state, 'secrets'));
  let log = '';
  const child: ChildProcess = spawn(PYTHON, [SCRIPT, state], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (c) => (log += c));
  child.stderr!.on('data', (c) => (log += c));
  const url = await eventually(
    async () => existsSync(path.join(state, 'url')) && readFileSync(path.join(state, 'url'), 'utf8'),
    20000,
    `the Python handlers to listen (log: ${log})`,
  );
  return {
    url,
    log: () => log,
    setSecret: (mode: 'async' | 'sync', secret: string) => writeFileSync(path.join(state, 'secrets', mode), secret),
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill();
      await exited;
      rmSync(state, { recursive: true, force: true });
    },
  };
}

/** Standard Webhooks, as the service signs its `http` calls. */
function sign(secret: string, id: string, timestamp: number, body: string) {
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const signature = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signature };
}

describe('handlers written with the Python kit, against the service', () => {
  let h: Harness;
  let python: Awaited<ReturnType<typeof startPythonHandlers>>;
  let lambda: AwsStandIn;
  /** What the Python Lambda answered each delivery of an invoke, by job id. */
  const deliveries = new Map<string, Promise<{ status: number; body: any }>[]>();

  beforeAll(async () => {
    python = await startPythonHandlers();
    const deliver = (body: string) =>
      fetch(`${python.url}/lambda`, { method: 'POST', body }).then(async (r) => ({ status: r.status, body: await r.json() }));
    // Lambda takes an asynchronous invoke at once and runs the function later, at least once: here, twice.
    lambda = await AwsStandIn.start((req) => {
      const jobId = JSON.parse(req.body).job_id as string;
      deliveries.set(jobId, [deliver(req.body), deliver(req.body)]);
      return { status: 202 };
    });
    h = await Harness.start({
      worker: true,
      lambda: new LambdaClient({ ...TEST_AWS, endpoint: lambda.url }),
      env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.1/32', JOB_COMPLETION_DEADLINE_SECONDS: '60' },
    });
  });
  afterAll(async () => {
    await h?.stop();
    await lambda?.stop();
    await python?.stop();
  });

  /** A model whose inference runs on `handler`, active; the secret the service showed once, when it has one. */
  async function model(handler: Record<string, unknown>) {
    const id = uid('py');
    const created = await h.api('POST', '/v2/models', {
      body: {
        id,
        name: id,
        description: 'Python handler',
        metadata: {},
        handlers: { training: ECHO_HANDLERS.training, inference: handler },
      },
    });
    expect(created.status).toBe(201);
    expect(await h.api('PUT', `/v2/models/${id}/versions/1/new_status`, { body: { status: 'active' } })).toMatchObject({ status: 200 });
    return { id, secret: created.body.http_handler_secret as string | undefined };
  }

  async function run(modelId: string, input: Record<string, unknown>) {
    const started = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input } });
    expect(started.status).toBe(202);
    for (;;) {
      const res = await h.api('GET', `/v2/jobs/${started.body.job_id}?wait=30`);
      if (!['pending', 'running'].includes(res.body.status)) return res.body;
    }
  }

  describe.each(['async', 'sync'] as const)('an http handler in %s mode', (mode) => {
    let modelId: string;
    let secret: string;
    beforeAll(async () => {
      const created = await model({ type: 'http', url: `${python.url}/${mode}`, mode });
      modelId = created.id;
      secret = created.secret!;
      python.setSecret(mode, secret);
    });

    it('runs a job to success with its output', async () => {
      const job = await run(modelId, { petals: 4 });
      expect(job).toMatchObject({ status: 'success', output: { python: mode, input: { petals: 4 } } });
    });

    it('runs a job to failure with the model error', async () => {
      const job = await run(modelId, { fail: 'the petals are missing' });
      expect(job.status).toBe('failure');
      expect(JSON.stringify(job.error)).toContain('the petals are missing');
    });

    it('refuses a call whose body was tampered with after signing, and one signed too long ago', async () => {
      const body = JSON.stringify({
        job_id: '019a0000-0000-7000-8000-0000000000aa',
        job_type: 'inference',
        model_id: modelId,
        model_version: '1',
        input: { petals: 4 },
        completion: { method: 'POST', path: '/x', url: `${h.baseUrl}/x`, token: 'not-a-job-token' },
      });
      const now = Math.floor(Date.now() / 1000);
      const tampered = await fetch(`${python.url}/${mode}`, {
        method: 'POST',
        headers: sign(secret, '019a0000-0000-7000-8000-0000000000aa', now, body),
        body: body.replace('"petals":4', '"petals":5'),
      });
      expect(tampered.status).toBe(401);
      expect(await tampered.json()).toEqual({ message: 'the signature does not verify with the handler secret' });
      const replayed = await fetch(`${python.url}/${mode}`, {
        method: 'POST',
        headers: sign(secret, '019a0000-0000-7000-8000-0000000000aa', now - 3600, body),
        body,
      });
      expect(replayed.status).toBe(401);
    });
  });

  it('a Lambda handler delivered twice for one job runs it and reports once', async () => {
    const fn = `arn:aws:lambda:eu-west-1:123456789012:function:${uid('py')}`;
    const { id } = await model({ type: 'lambda', arn: fn });
    const job = await run(id, { petals: 3 });
    expect(job).toMatchObject({ status: 'success', output: { python: 'lambda', input: { petals: 3 } } });
    const answers = await Promise.all(deliveries.get(job.job_id)!);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.map((a) => a.body.outcome).sort()).toEqual(['duplicate', 'reported']);
    expect(answers.find((a) => a.body.outcome === 'reported')!.body).toMatchObject({
      report: 'success',
      answer: { kind: 'recorded', status: 200 },
    });
  });

  it('a Lambda handler gets a clear error for a job the service does not know, and for a malformed event', async () => {
    const event = {
      job_id: '019a0000-0000-7000-8000-0000000000bb',
      job_type: 'inference',
      model_id: 'nobody',
      model_version: '1',
      input: {},
      completion: {
        method: 'POST',
        path: '/x',
        url: `${h.baseUrl}/v2/models/nobody/versions/1/jobs/019a0000-0000-7000-8000-0000000000bb/complete`,
        token: 'forged',
      },
    };
    const answer = await fetch(`${python.url}/lambda`, { method: 'POST', body: JSON.stringify(event) });
    expect(answer.status).toBe(500);
    expect(await answer.json()).toEqual({ errorType: 'CompletionRefused', errorMessage: expect.stringMatching(/was refused \(401\)/) });
    const malformed = await fetch(`${python.url}/lambda`, { method: 'POST', body: JSON.stringify({ ...event, job_type: 'batch' }) });
    expect(await malformed.json()).toEqual({ errorType: 'InvalidPayload', errorMessage: 'job_type must be inference or training' });
  });
});
