import fc from 'fast-check';
import { Harness } from '../../helpers/harness';
import { activeModel, tenantWithDomain, initService } from '../../helpers/fixtures';
import { requestsFrom, describeRequest, FuzzRequest } from '../../helpers/openapi-arbitraries';
import { buildOpenApiDocument } from '../../../src/openapi/document';

const SEED = Number(process.env.FUZZ_SEED ?? 20261111);
const BUDGET_SECONDS = Number(process.env.FUZZ_SECONDS ?? 60);
/** A request that takes longer than this counts as a hang. */
const HANG_MS = 10000;

/**
 * Every operation of the OpenAPI document, fuzzed with fast-check from its own schemas plus hostile values
 * (NUL, lone surrogates, deep nesting, huge and negative numbers, odd path segments, forged cursors):
 * no response may be ≥ 500, none may hang. Fixed seed; FUZZ_SEED and FUZZ_SECONDS override.
 */
describe('fuzzing every operation of the OpenAPI document', () => {
  let h: Harness;
  let fixtures: Record<string, string>;
  beforeAll(async () => {
    h = await Harness.start();
    const modelId = await activeModel(h);
    const target = await activeModel(h);
    const t = await tenantWithDomain(h, { modelId });
    const init = await initService(h, t.base, 'svc', { seats: 1 });
    await h.api('PUT', `${t.base}/assignments/k`, { body: { model_id: modelId, model_version: '1' } });
    const sub = await h.api('POST', `/v2/models/${modelId}/event-subscriptions`, {
      body: { trigger_event: 'inference_complete', target_model_id: target, target_action: 'inference', input_source: 'trigger_output' },
    });
    fixtures = {
      client_id: t.clientId,
      domain_id: t.domainId,
      service_id: 'svc',
      model_id: modelId,
      model_version: '1',
      assignment_key: 'k',
      model_job_id: init.body.job_id,
      subscription_id: sub.body.subscription_id,
      target_model_id: target,
    };
  });
  afterAll(async () => {
    // The fuzzed job starts run no worker and stay pending; other files' reconcilers scan the shared database
    // for pending rows (oldest first, 100 at a time), so these must not stay behind to crowd them out.
    await h
      .knex('model_jobs')
      .where({ status: 'pending' })
      .andWhere((q) => q.whereIn('model_id', [fixtures.model_id, fixtures.target_model_id]).orWhere('client_id', fixtures.client_id))
      .update({ status: 'failure', error: JSON.stringify({ message: 'left by the fuzz test' }) });
    await h.stop();
  });

  it(
    `answers no request with a status ≥ 500 and none later than ${HANG_MS / 1000} s (seed ${SEED}, ${BUDGET_SECONDS} s)`,
    async () => {
      const token = await h.adminToken();
      const counts: Record<string, number> = {};
      let requests = 0;
      const inFlight = new Set<Promise<unknown>>();
      const send = (req: FuzzRequest) => {
        // Tracked, so a request still running when the time budget interrupts the run is awaited before teardown.
        const sent = sendOne(req);
        inFlight.add(sent);
        return sent.finally(() => inFlight.delete(sent));
      };
      const sendOne = async (req: FuzzRequest) => {
        requests++;
        const res = await fetch(`${h.baseUrl}${req.path}`, {
          method: req.method,
          headers: {
            Authorization: `Bearer ${token}`,
            ...(req.body !== undefined ? { 'Content-Type': 'application/json' } : {}),
            ...req.headers,
          },
          body: req.body,
          signal: AbortSignal.timeout(HANG_MS),
        }).catch((err) => {
          throw new Error(`${describeRequest(req)} did not answer within ${HANG_MS} ms: ${err.message}`);
        });
        const text = await res.text();
        counts[res.status] = (counts[res.status] ?? 0) + 1;
        if (res.status >= 500) throw new Error(`${describeRequest(req)} → ${res.status} ${text.slice(0, 300)}`);
        if (res.status >= 400 && !/"success":false|"blocking_services"/.test(text))
          throw new Error(`${describeRequest(req)} → ${res.status} without an ErrorResponse: ${text.slice(0, 200)}`);
      };
      const started = Date.now();
      try {
        await fc.assert(fc.asyncProperty(requestsFrom(buildOpenApiDocument(), fixtures), send), {
          seed: SEED,
          numRuns: 1_000_000,
          interruptAfterTimeLimit: BUDGET_SECONDS * 1000,
          markInterruptAsFailure: false,
          endOnFailure: true,
        });
      } catch (err) {
        await Promise.allSettled(inFlight);
        console.log(
          `fuzz failed: reproduce with FUZZ_SEED=${SEED} FUZZ_SECONDS=${BUDGET_SECONDS} npx jest test/temporal/openapi/fuzz.test.ts`,
        );
        throw err;
      }
      await Promise.allSettled(inFlight);
      console.log(
        `fuzz: ${requests} requests in ${Math.round((Date.now() - started) / 1000)} s, seed ${SEED}, statuses ${JSON.stringify(counts)}`,
      );
      expect(Object.keys(counts).filter((s) => Number(s) >= 500)).toEqual([]);
    },
    (BUDGET_SECONDS + 60) * 1000,
  );
});
