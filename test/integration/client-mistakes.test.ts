import { Harness } from '../helpers/harness';
import { activeModel, tenantWithDomain, initService } from '../helpers/fixtures';
import { OPERATIONS } from '../../src/openapi/operations';
import { schemas } from '../../src/openapi/schemas';

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
  beforeAll(async () => {
    h = await Harness.start();
    const modelId = await activeModel(h);
    const t = await tenantWithDomain(h, { modelId });
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
});
