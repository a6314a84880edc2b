import { readFileSync } from 'node:fs';
import path from 'node:path';
import { completionRoute, type ScriptedAnswer } from './completion-route';
import { parseJob, InvalidPayload, verifySignature, reportCompletion, CompletionRefused, MemoryStore } from '../src';

/** The cases the Python kit's tests read too (handler-kit-python/tests/test_contract.py), so the two cannot drift. */
const CASES = JSON.parse(readFileSync(path.join(__dirname, '..', 'contract-cases.json'), 'utf8'));

/** Cases as `it.each` rows, named. */
const named = (cases: any[]): [string, any][] => cases.map((c) => [c.name, c]);

describe('the handler kit contract cases', () => {
  it.each(named(CASES.payloads))('payload: %s', (_name, c: any) => {
    const payload = 'text' in c ? c.text : c.payload;
    if (c.error === null) {
      expect(parseJob(payload).job_id).toBe(c.payload.job_id);
      expect(parseJob(JSON.stringify(payload))).toEqual(payload);
    } else {
      expect(() => parseJob(payload)).toThrow(new InvalidPayload(c.error));
    }
  });

  describe('signatures', () => {
    const { secret, now, tolerance_s, body, cases } = CASES.signatures;
    afterEach(() => jest.restoreAllMocks());
    it.each(named(cases))('%s', (_name, c: any) => {
      jest.spyOn(Date, 'now').mockReturnValue(now * 1000);
      expect(verifySignature(secret, c.headers, c.body ?? body, tolerance_s)).toBe(c.valid);
    });
  });

  it.each(named(CASES.completion))('completion: %s', async (_name, c: any) => {
    const route = await completionRoute(c.answers.map((a: ScriptedAnswer) => ({ ...a })));
    try {
      const job = parseJob({
        ...CASES.payloads[0].payload,
        completion: { method: 'POST', path: '/complete', url: route.url, token: 'job-token' },
      });
      const report = { status: 'success' as const, output: { label: 'setosa' } };
      const sent = reportCompletion(job, report, { initialDelayMs: 10, maxElapsedMs: c.max_elapsed_ms ?? 60_000 });
      const expected = c.outcome;
      if (expected.kind === 'recorded') await expect(sent).resolves.toMatchObject({ kind: 'recorded', status: expected.status });
      else if (expected.kind === 'conflict') await expect(sent).resolves.toEqual({ kind: 'conflict', message: expected.message });
      else if (expected.kind === 'refused') {
        await expect(sent).rejects.toBeInstanceOf(CompletionRefused);
        await expect(sent).rejects.toThrow(expected.message);
      } else await expect(sent).rejects.toThrow(expected.message);
      if (c.attempts !== undefined) expect(route.received).toHaveLength(c.attempts);
      for (const r of route.received) {
        expect(r.body).toEqual(report);
        expect(r.headers.authorization).toBe('Bearer job-token');
      }
    } finally {
      await route.close();
    }
  });

  it.each(named(CASES.dedup))('dedup: %s', async (_name, c: any) => {
    const store = new MemoryStore();
    for (const step of c.steps) {
      if (step[0] === 'claim') expect(await store.claim('job-1', step[1])).toBe(step[2]);
      else await store[step[0] as 'complete' | 'release']('job-1');
      await new Promise((r) => setTimeout(r, 2)); // a lease of 0 s has run out by the next step
    }
  });
});
