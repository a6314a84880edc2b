import http from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { startReconciler } from '../../../../src/domain/jobs/launch/reconciler';
import { workflowIdFor } from '../../../../src/domain/ports/job-gateway.port';
import { Harness } from '../../../helpers/harness';
import { activeModel, ECHO_HANDLERS, eventually, initService, tenantWithDomain } from '../../../helpers/fixtures';
import { MAX_OUTPUT_VALUES } from '../../../../src/domain/jobs/run/storable-outcomes';
import { createOutbox } from '../../../../src/domain/webhooks';
import { outboxStore } from '../../../../src/db/outbox.repository';

/** The bound this test holds every unstorable outcome to, from the job's start to its final state. */
const FINAL_WITHIN_MS = 15_000;
const MANUAL = { training: { type: 'in_process', name: 'manual' }, inference: { type: 'in_process', name: 'manual' } };
/** A schema ajv cannot run: its `$dynamicRef` resolves to itself, and validating any value overflows the stack. */
const SELF_REFERENCING_SCHEMA = { $dynamicAnchor: 'x', $dynamicRef: '#x' };
const WIDE_FEATURES = [{ name: 'items', json_schema: { type: 'array' }, mandatory: true }];

/** What the model server answers on each path: a status and the body as raw text (JSON.stringify cannot write some). */
const ANSWERS: Record<string, { status: number; body: string }> = {
  nul: { status: 200, body: '{"a":{"b":"x\\u0000y"}}' },
  surrogate: { status: 200, body: '{"s":"\\ud800"}' },
  deep: { status: 200, body: `${'{"a":'.repeat(20000)}1${'}'.repeat(20000)}` },
  wide: { status: 200, body: JSON.stringify({ items: new Array(200000).fill(0) }) },
  'refusal-nul': { status: 400, body: '{"error":{"message":"bad\\u0000input"}}' },
  // Cut at 1,000 UTF-16 units, the message ends in half an emoji's surrogate pair.
  'refusal-emoji': { status: 400, body: JSON.stringify({ message: `a${'😀'.repeat(600)}` }) },
  'dynamic-ref': { status: 200, body: '{"label":"x"}' },
};

function startModelServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = ANSWERS[(req.url ?? '/').slice(1)] ?? { status: 404, body: '{}' };
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

/**
 * Outcomes the job's record cannot hold as given (docs/jobs.md, "Outcomes the service stores"): each ends the job
 * `failure` with the reason `output_unstorable` within FINAL_WITHIN_MS, and the capped tenant's held job then starts.
 */
describe('unstorable outcomes', () => {
  let h: Harness;
  let server: { url: string; close: () => Promise<void> };
  beforeAll(async () => {
    h = await Harness.start({
      worker: true,
      releaser: true,
      env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_PRIVATE_RANGES: '127.0.0.1/32', JOB_COMPLETION_DEADLINE_SECONDS: '120' },
    });
    server = await startModelServer();
  });
  afterAll(async () => {
    console.log(`from the start request to the job final:\n${timings.join('\n')}`);
    await server.close();
    await h.stop();
  });

  const job = async (jobId: string) => (await h.api('GET', `/v2/jobs/${jobId}`)).body;

  /** A tenant capped at one running job, assigned a model with these handlers; the contract written as stored. */
  async function cappedTenant(handlers: unknown, options: { outputSchema?: unknown; features?: unknown[] } = {}) {
    const modelId = await activeModel(h, { handlers, ...(options.features ? { features: options.features } : {}) });
    if (options.outputSchema) {
      // Written directly: the registry refuses such a schema when it is stored; one stored before must still end its jobs.
      const contracts = { inference: { output_schema: options.outputSchema } };
      await h
        .knex('models')
        .where({ id: modelId })
        .update({ handler_contracts: JSON.stringify(contracts) });
    }
    const tenant = await tenantWithDomain(h, { modelId, ...(options.features ? { features: options.features } : {}) });
    await h.api('PUT', `/v2/clients/${tenant.clientId}`, { body: { limits: { max_running_jobs: 1 } } });
    return tenant;
  }

  /** How long each bad job took from its start request to its final state, printed at the end (docs/jobs.md). */
  const timings: string[] = [];

  /** The job once final, failing the test unless that is within FINAL_WITHIN_MS of `started`. */
  async function finalJob(jobId: string, started: number, what: string) {
    const final = await eventually(
      async () => {
        const current = await job(jobId);
        return ['pending', 'running'].includes(current.status) ? undefined : current;
      },
      FINAL_WITHIN_MS,
      `job ${jobId} final`,
    );
    timings.push(`${what}: ${Date.now() - started} ms`);
    return final;
  }

  /** Starts the bad job and, behind it, a second one held by the cap; answers the first once final, and the second's id. */
  async function badThenNext(base: string, features: Record<string, unknown>, nextFeatures = features) {
    const started = Date.now();
    const bad = (await initService(h, base, 'bad', features)).body.job_id as string;
    const held = await initService(h, base, 'next', nextFeatures);
    expect(held.status).toBe(202);
    return { final: await finalJob(bad, started, expect.getState().currentTestName ?? bad), next: held.body.job_id as string };
  }

  const nextStarts = (jobId: string) =>
    eventually(async () => ((await job(jobId)).status !== 'pending' ? true : undefined), FINAL_WITHIN_MS, 'the held job started');

  it.each([
    ['a NUL in the output', 'nul', /output holds a NUL character at \$\.a\.b/],
    ['a lone surrogate in the output', 'surrogate', /output holds a lone surrogate \(not valid Unicode\) at \$\.s/],
    ['output nested 20,000 levels', 'deep', /output is nested deeper than 64 levels at \$\.a\.a/],
    ['an array of 200,000 in the output', 'wide', new RegExp(`output holds more than ${MAX_OUTPUT_VALUES} values`)],
  ])('a sync http answer with %s fails the job output_unstorable, and the next job starts', async (_what, path, reason) => {
    const t = await cappedTenant({
      training: ECHO_HANDLERS.training,
      inference: { type: 'http', url: `${server.url}/${path}`, mode: 'sync' },
    });
    const { final, next } = await badThenNext(t.base, { seats: 1 });
    expect(final).toMatchObject({ status: 'failure', error: { reason: 'output_unstorable', message: expect.stringMatching(reason) } });
    await nextStarts(next);
  });

  it.each([
    ['has a NUL', 'refusal-nul', /answered 400: bad\uFFFDinput$/],
    ['is cut mid-emoji at 1,000 characters', 'refusal-emoji', /answered 400: a(😀)+$/u],
  ])('a 400 answer whose message %s fails the job with that message made storable', async (_what, path, message) => {
    const t = await cappedTenant({
      training: ECHO_HANDLERS.training,
      inference: { type: 'http', url: `${server.url}/${path}`, mode: 'sync' },
    });
    const { final, next } = await badThenNext(t.base, { seats: 1 });
    expect(final.status).toBe('failure');
    expect(final.error.message).toMatch(message);
    expect(final.error.message.length).toBeLessThanOrEqual(1000);
    await nextStarts(next);
  });

  it('an output_schema the validator cannot run fails a sync http job instead of retrying it', async () => {
    const t = await cappedTenant(
      { training: ECHO_HANDLERS.training, inference: { type: 'http', url: `${server.url}/dynamic-ref`, mode: 'sync' } },
      { outputSchema: SELF_REFERENCING_SCHEMA },
    );
    const { final, next } = await badThenNext(t.base, { seats: 1 });
    // The users' schema compiler answers such a schema with a failed validation naming why (it never throws).
    expect(final).toMatchObject({ status: 'failure', error: { message: expect.stringMatching(/output_schema.*recurses without end/) } });
    await nextStarts(next);
  });

  it('an output_schema the validator cannot run leaves an echo job final', async () => {
    const t = await cappedTenant(ECHO_HANDLERS, { outputSchema: SELF_REFERENCING_SCHEMA });
    const { final, next } = await badThenNext(t.base, { seats: 1 });
    // The outcome is recorded; the schema's verdict is logged, as for any output that breaks its contract.
    expect(final.status).toBe('success');
    await nextStarts(next);
  });

  it('an echo of an input holding 200,000 values fails the job output_unstorable, and the next job starts', async () => {
    const t = await cappedTenant(ECHO_HANDLERS, { features: WIDE_FEATURES });
    const { final, next } = await badThenNext(t.base, { items: new Array(200000).fill(0) }, { items: [] });
    expect(final).toMatchObject({
      status: 'failure',
      error: {
        reason: 'output_unstorable',
        message: `output holds more than ${MAX_OUTPUT_VALUES} values (an array of 200000 at $.features.items)`,
      },
    });
    await nextStarts(next);
  });

  it('the completion route refuses an unstorable output with 400 naming why, and takes a report within the bounds', async () => {
    const t = await cappedTenant(MANUAL);
    const jobId = (await initService(h, t.base, 'manual', { seats: 1 })).body.job_id as string;
    await eventually(async () => ((await job(jobId)).status === 'running' ? true : undefined), FINAL_WITHIN_MS, 'the job running');
    const { model_id: modelId } = await job(jobId);
    const complete = (body: unknown) => h.api('POST', `/v2/models/${modelId}/versions/1/jobs/${jobId}/complete`, { body });

    const wide = await complete({ status: 'success', output: { items: new Array(200000).fill(0) } });
    expect(wide.status).toBe(400);
    expect(wide.body.message).toBe(`output_unstorable: output holds more than ${MAX_OUTPUT_VALUES} values (an array of 200000 at $.items)`);
    const nul = await complete({ status: 'success', output: { a: 'x\u0000' } });
    expect(nul.status).toBe(400);
    expect(nul.body.message).toMatch(/\/output\/a contains a NUL character/);
    expect((await job(jobId)).status).toBe('running');

    expect((await complete({ status: 'success', output: { items: [0] } })).status).toBe(200);
    expect(await job(jobId)).toMatchObject({ status: 'success', output: { items: [0] } });
  });

  it('the reconciler fails a job whose workflow closed without recording its outcome, and the next job starts', async () => {
    const t = await cappedTenant(MANUAL);
    const closed = (await initService(h, t.base, 'terminated', { seats: 1 })).body.job_id as string;
    await eventually(async () => ((await job(closed)).status === 'running' ? true : undefined), FINAL_WITHIN_MS, 'the job running');
    const held = (await initService(h, t.base, 'next', { seats: 1 })).body.job_id as string;
    await h.temporal.workflow.getHandle(workflowIdFor(closed)).terminate('closed by an operator');
    const quiet = pino({ level: 'silent' });
    const reconciler = startReconciler({
      outbox: createOutbox(outboxStore),
      knex: h.knex,
      gateway: h.gateway,
      log: quiet,
      everyMs: 3600000,
      redeliverEveryMs: 3600000,
      closedEveryMs: 3600000,
    });
    try {
      // Visibility may lag the close by a moment: a pass that finds nothing yet is followed by the next.
      await eventually(
        async () => {
          await reconciler.finishClosedOnce();
          return (await job(closed)).status === 'running' ? undefined : true;
        },
        FINAL_WITHIN_MS,
        'the terminated job final',
      );
    } finally {
      await reconciler.stop();
    }
    expect(await job(closed)).toMatchObject({
      status: 'failure',
      error: { reason: 'workflow_closed', message: "the job's workflow closed (terminated) without recording an outcome" },
    });
    await nextStarts(held);
  });
});
