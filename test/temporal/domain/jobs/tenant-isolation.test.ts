import { Harness, uid } from '../../../helpers/harness';
import { activeModel, tenantWithDomain, eventually } from '../../../helpers/fixtures';
import { parseSamples, valueOf } from '../../../helpers/prometheus';
import { startOwnTemporal, untilJobStartsAreTaken, type CrashableTemporal } from '../../../helpers/own-temporal';
import { WITHOUT_FAIRNESS } from '../../../../src/dev/temporal/server-tuning';

/** One tenant's burst and another tenant's work (docs/fairness.md): requests in fair turn, jobs in fair shares. */
describe('fair queuing of requests', () => {
  let h: Harness;
  beforeAll(async () => {
    // One seat per level: every request past the first waits its turn, so the order of service is what is measured.
    h = await Harness.start({ env: { REQUEST_SEATS: '1', REQUEST_QUEUE_LENGTH: '1000' } });
  });
  afterAll(() => h.stop());

  const queued = async () =>
    valueOf(parseSamples((await h.api('GET', '/metrics', { token: null })).body), 'mos_request_queue_length', { level: 'reads' });

  it("serves a quiet tenant's read within a turn or two of another tenant's flood of reads queued before it", async () => {
    const flood = await tenantWithDomain(h);
    const quiet = await tenantWithDomain(h);
    const token = await h.adminToken();
    const FLOOD = 400;
    let floodAnswered = 0;
    const floodReads = Array.from({ length: FLOOD }, () =>
      h.api('GET', `/v2/clients/${flood.clientId}/domains`, { token }).then((res) => {
        floodAnswered++;
        return res.status;
      }),
    );
    await eventually(async () => ((await queued()) ?? 0) >= 100, 20000, 'the flood queued');
    const answeredBefore = floodAnswered;
    const read = await h.api('GET', `/v2/clients/${quiet.clientId}/domains`, { token });
    const floodAhead = floodAnswered - answeredBefore;
    const stillQueued = FLOOD - floodAnswered;
    expect(read.status).toBe(200);
    // The bound: first come, first served it would wait for the 100 or more flood reads queued before it; in fair
    // turn at most the one being served and one more turn, plus answers already on the wire.
    expect(floodAhead).toBeLessThanOrEqual(10);
    expect(stillQueued).toBeGreaterThanOrEqual(50);
    expect(new Set(await Promise.all(floodReads))).toEqual(new Set([200]));
    const samples = parseSamples((await h.api('GET', '/metrics', { token: null })).body);
    expect(valueOf(samples, 'mos_request_queue_wait_seconds_count', { level: 'reads' })).toBeGreaterThanOrEqual(FLOOD);
  });

  it('answers the excess of a full queue 429 with Retry-After, at once, and serves the rest', async () => {
    const shed = await Harness.start({ env: { REQUEST_SEATS: '1', REQUEST_QUEUE_LENGTH: '4' } });
    try {
      const flood = await tenantWithDomain(shed);
      const token = await shed.adminToken();
      const answers = await Promise.all(
        Array.from({ length: 60 }, () =>
          shed.api('POST', `/v2/clients/${flood.clientId}/domains`, { token, body: { domain_id: uid('d'), features: [] } }),
        ),
      );
      const refused = answers.filter((a) => a.status === 429);
      expect(refused.length).toBeGreaterThan(0);
      expect(answers.filter((a) => a.status === 201).length).toBeGreaterThanOrEqual(5);
      expect(answers.every((a) => a.status === 201 || a.status === 429)).toBe(true);
      for (const a of refused) {
        expect(Number(a.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(a.body.message).toMatch(/too many writes of this caller are waiting/);
      }
      const samples = parseSamples((await shed.api('GET', '/metrics', { token: null })).body);
      expect(valueOf(samples, 'mos_requests_shed_total', { level: 'writes', reason: 'queue_full' })).toBe(refused.length);
    } finally {
      await shed.stop();
    }
  });
});

describe('fair shares of jobs on a Temporal server without fairness', () => {
  let temporal: CrashableTemporal;
  let h: Harness;
  let modelId: string;
  beforeAll(async () => {
    temporal = await startOwnTemporal({ dynamicConfig: WITHOUT_FAIRNESS });
    await untilJobStartsAreTaken(temporal.address);
    h = await Harness.start({
      worker: true,
      releaser: true,
      temporalAddress: temporal.address,
      // A small worker: four jobs of all tenants run at once; past that a tenant over its share waits.
      env: { TEMPORAL_ADDRESS: temporal.address, JOB_CAPACITY: '4', TEMPORAL_FAIRNESS_PROBE: 'on' },
    });
    modelId = await activeModel(h);
  });
  afterAll(async () => {
    await h?.stop();
    await temporal?.stop();
  });

  it("runs a quiet tenant's job while most of another tenant's forty jobs are still waiting, and finishes all of them", async () => {
    const flood = await tenantWithDomain(h, { modelId });
    const quiet = await tenantWithDomain(h, { modelId });
    const token = await h.adminToken();
    const FLOOD = 40;
    const accepted = await Promise.all(
      Array.from({ length: FLOOD }, (_, i) =>
        h.api('POST', `${flood.base}/service/init`, {
          token,
          body: { service_id: `flood-${i}`, departure_datetime: '2031-01-01T00:00:00Z', static_features: { seats: 1 + i } },
        }),
      ),
    );
    expect(accepted.every((a) => a.status === 202)).toBe(true);
    const held = await h.knex('model_jobs').where({ client_id: flood.clientId }).whereNotNull('queued_reason').first();
    expect(held?.queued_reason).toMatch(/fair share of the workers/);

    const init = await h.api('POST', `${quiet.base}/service/init`, {
      token,
      body: { service_id: 'quiet', departure_datetime: '2031-01-01T00:00:00Z', static_features: { seats: 1 } },
    });
    expect(init.status).toBe(202);
    const job = await h.api('GET', `/v2/jobs/${init.body.job_id}?wait=30`, { token });
    expect(job.body.status).toBe('success');
    // The bound: the quiet job waited behind at most JOB_CAPACITY of the flood's jobs in Temporal's first-come queue,
    // not behind all forty; most of the flood was still unfinished when it succeeded.
    const unfinished = await h
      .knex('model_jobs')
      .where({ client_id: flood.clientId })
      .whereIn('status', ['pending', 'running'])
      .count({ n: '*' });
    expect(Number(unfinished[0].n)).toBeGreaterThanOrEqual(FLOOD / 2);

    await eventually(
      async () => {
        const [{ n }] = await h.knex('model_jobs').where({ client_id: flood.clientId, status: 'success' }).count({ n: '*' });
        return Number(n) === FLOOD;
      },
      50000,
      "every one of the flood's jobs finished",
    );
  });

  it("names the server's fairness state in readiness and metrics: off on this server", async () => {
    const ready = await eventually(
      async () => {
        const res = await h.api('GET', '/v2/health/ready', { token: null });
        return res.body.temporal_fairness?.startsWith('unknown') ? undefined : res;
      },
      30000,
      'the probe answered',
    );
    expect(ready.body.temporal_fairness).toMatch(/^off \(0 of 4 quiet tasks/);
    const samples = parseSamples((await h.api('GET', '/metrics', { token: null })).body);
    expect(valueOf(samples, 'mos_temporal_fairness', {})).toBe(0);
  });
});

describe("readiness on the suite's server, which has fairness on", () => {
  it('names fairness on', async () => {
    const h = await Harness.start({ env: { TEMPORAL_FAIRNESS_PROBE: 'on' } });
    try {
      const ready = await eventually(
        async () => {
          const res = await h.api('GET', '/v2/health/ready', { token: null });
          return res.body.temporal_fairness?.startsWith('unknown') ? undefined : res;
        },
        30000,
        'the probe answered',
      );
      expect(ready.body.temporal_fairness).toMatch(/^on \(/);
    } finally {
      await h.stop();
    }
  });
});
