import { Harness } from '../../helpers/harness';
import { activeModel, tenantWithDomain, initService } from '../../helpers/fixtures';
import { OPERATIONS } from '../../../src/openapi/operations';
import { schemas } from '../../../src/openapi/schemas';

/** Wrong values of every JSON type, for every property a request schema names. */
const WRONG_VALUES: unknown[] = [
  null,
  12345,
  -1.5,
  true,
  'x'.repeat(300),
  [],
  [1, 'a'],
  { nested: { deep: [null] } },
  '2030-13-45T99:99:99Z',
];

function propertiesOf(name: string): string[] {
  const schema = schemas[name] as any;
  const own = Object.keys(schema.properties ?? {});
  const inherited = (schema.allOf ?? []).flatMap((s: any) => propertiesOf(s.$ref.split('/').pop()));
  return [...new Set([...own, ...inherited])];
}

describe('client mistakes never produce a 500', () => {
  let h: Harness;
  let paths: Record<string, string>;
  let t: Awaited<ReturnType<typeof tenantWithDomain>>;
  let modelId: string;
  beforeAll(async () => {
    h = await Harness.start();
    modelId = await activeModel(h);
    t = await tenantWithDomain(h, { modelId });
    await initService(h, t.base, 'svc', { seats: 1 });
    await h.api('PUT', `${t.base}/assignments/k`, { body: { model_id: modelId, model_version: '1' } });
    paths = { client_id: t.clientId, domain_id: t.domainId, service_id: 'svc', model_id: modelId, model_version: '1', assignment_key: 'k' };
  });
  afterAll(() => h.stop());

  const concrete = (path: string) => path.replace(/\{([a-z_]+)\}/g, (_, name) => paths[name] ?? '01890000-0000-7000-8000-000000000000');

  it('survives wrong JSON types in every body property of every operation', async () => {
    const failures: string[] = [];
    for (const op of OPERATIONS.filter((o) => o.body)) {
      const bodies: unknown[] = [null, [], 'text', 42, {}];
      for (const prop of propertiesOf(op.body!)) for (const value of WRONG_VALUES) bodies.push({ [prop]: value });
      for (const body of bodies) {
        const res = await h.api(op.method, concrete(op.path), { body: JSON.stringify(body) });
        if (res.status >= 500)
          failures.push(`${op.method} ${op.path} ${JSON.stringify(body).slice(0, 80)} → ${res.status} ${JSON.stringify(res.body)}`);
        if (res.status >= 400 && res.body?.success !== false && !res.body?.blocking_services)
          failures.push(`${op.method} ${op.path}: ${res.status} without an ErrorResponse`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('survives odd path segments and query values on every operation', async () => {
    const failures: string[] = [];
    const odd = ['%00', '..', '%E2%98%83', 'a'.repeat(200), "'; drop table clients; --", '%25'];
    for (const op of OPERATIONS) {
      for (const segment of odd) {
        const path = op.path.replace(/\{[a-z_]+\}/g, segment) + '?limit=abc&cursor=%7B&status=nope';
        const res = await h.api(op.method, path, { body: op.body ? {} : undefined });
        if (res.status >= 500) failures.push(`${op.method} ${path} → ${res.status}`);
      }
    }
    expect(failures).toEqual([]);
  });

  describe('instants', () => {
    // RFC 3339 admits each of these; Postgres' timestamptz (no year 0, offsets within ±15:59) or Date (no leap second,
    // years 0001-9999 once in UTC) does not.
    const UNSTORABLE = [
      '0000-01-01T00:00:00Z',
      '2031-07-01T09:30:00+23:59',
      '2031-07-01T09:30:00-16:00',
      '0001-01-01T00:30:00+01:00',
      '9999-12-31T23:00:00-02:00',
      '2030-12-31T23:59:60Z',
    ];

    async function requestsWith(instant: string): Promise<Array<{ field: string; status: number; message: string }>> {
      const schedule = await h.api('POST', '/v2/inference-schedules', {
        body: { model_id: modelId, model_version: '1', spec: { intervals: [{ every_seconds: 600 }] }, paused: true },
      });
      const requests: Array<[string, string, object | undefined, string]> = [
        [
          'POST',
          `${t.base}/service/init`,
          { service_id: 'dated', departure_datetime: instant, static_features: { seats: 1 } },
          'departure_datetime',
        ],
        ['PUT', `${t.base}/service/svc`, { departure_datetime: instant }, 'departure_datetime'],
        [
          'POST',
          '/v2/inference-schedules',
          { model_id: modelId, model_version: '1', spec: { intervals: [{ every_seconds: 600 }], start_at: instant }, paused: true },
          'start_at',
        ],
        [
          'POST',
          `/v2/inference-schedules/${schedule.body.schedule_id}/backfill`,
          { start_at: '2020-01-01T00:00:00Z', end_at: instant },
          'end_at',
        ],
        ['GET', `/v2/jobs?created_after=${encodeURIComponent(instant)}`, undefined, 'created_after'],
        ['GET', `${t.base}/service/svc/effective-assignments?at=${encodeURIComponent(instant)}`, undefined, 'at'],
      ];
      const answers = [];
      for (const [method, path, body, field] of requests) {
        const res = await h.api(method, path, { body });
        answers.push({ field, status: res.status, message: String(res.body?.message) });
      }
      return answers;
    }

    it.each(UNSTORABLE)('%s is a 400 naming the field wherever a caller gives an instant', async (instant) => {
      for (const answer of await requestsWith(instant)) {
        expect(answer).toEqual({ field: answer.field, status: 400, message: expect.stringContaining(answer.field) });
      }
    });

    it.each(['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z', '2031-07-01T09:30:00+15:59', '2031-07-01T09:30:00-15:59'])(
      'stores %s, an extreme Postgres holds',
      async (instant) => {
        const serviceId = `edge-${instant.slice(0, 4)}${instant.slice(-6, -3).replace(/\D/g, '')}`;
        expect((await initService(h, t.base, serviceId, { seats: 1 }, instant)).status).toBe(202);
        const stored = await h.api('GET', `${t.base}/service/${serviceId}`);
        expect(new Date(stored.body.departure_datetime).getTime()).toBe(new Date(instant).getTime());
      },
    );
  });
});
