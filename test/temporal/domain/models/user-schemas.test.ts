import { Harness } from '../../../helpers/harness';
import { activeModel, eventually, tenantWithDomain } from '../../../helpers/fixtures';

const CATASTROPHIC = '^(a+)+$';
// On a backtracking engine each such input takes about 2^40 steps: 0.6 s at 26 characters, doubling with each one.
const POISON = `${'a'.repeat(39)}!`;
const MANUAL = { training: { type: 'in_process', name: 'manual' }, inference: { type: 'in_process', name: 'manual' } };
const stringPattern = { type: 'object', properties: { s: { type: 'string', pattern: CATASTROPHIC } } };
const keyPattern = { type: 'object', patternProperties: { [CATASTROPHIC]: true }, additionalProperties: false };

describe("users' schemas", () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ worker: true });
  });
  afterAll(() => h.stop());

  async function timed<T>(run: () => Promise<T>): Promise<{ result: T; ms: number }> {
    const start = performance.now();
    const result = await run();
    return { result, ms: performance.now() - start };
  }

  describe('a catastrophic pattern answers in linear time', () => {
    // The validation itself is held to 50 ms in test/unit/domain/common/json-schemas.test.ts; a request adds the database and, for an
    // output, Temporal, so the bound here is one a backtracking engine (hours at 40 characters) cannot meet.
    it.each([
      ['pattern', stringPattern, { s: POISON }],
      ['patternProperties', keyPattern, { [POISON]: 1 }],
    ])('in an input_schema: %s', async (_keyword, schema, input) => {
      const modelId = await activeModel(h, { handlers: MANUAL, handler_contracts: { inference: { input_schema: schema } } });
      const { result, ms } = await timed(() => h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input } }));
      expect(result.status).toBe(422);
      expect(ms).toBeLessThan(1000);
    });

    it.each([
      ['pattern', stringPattern, { s: POISON }],
      ['patternProperties', keyPattern, { [POISON]: 1 }],
    ])('in an output_schema: %s', async (_keyword, schema, output) => {
      const modelId = await activeModel(h, { handlers: MANUAL, handler_contracts: { inference: { output_schema: schema } } });
      const infer = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } });
      const jobId = infer.body.job_id;
      await eventually(async () => (await h.api('GET', `/v2/jobs/${jobId}`)).body.status === 'running');
      const complete = `/v2/models/${modelId}/versions/1/jobs/${jobId}/complete`;
      const { result, ms } = await timed(() => h.api('POST', complete, { body: { status: 'success', output } }));
      expect(result.status).toBe(200);
      expect(ms).toBeLessThan(2000);
    });

    it('in a feature schema: refused when stored', async () => {
      const t = await tenantWithDomain(h);
      const res = await h.api('PUT', `${t.base}/features`, {
        body: { features: [{ name: 'code', json_schema: { type: 'string', pattern: CATASTROPHIC }, mandatory: true }] },
      });
      expect(res.status).toBe(422);
      expect(res.body.message).toContain('json_schema uses keywords not allowed for feature values: pattern');
    });
  });

  describe('a schema the validator cannot run is refused when stored, naming the field', () => {
    it.each([
      ['input_schema', 'a backreference', { properties: { s: { pattern: '^(a)\\1$' } } }, 'pattern at /properties/s/pattern'],
      ['output_schema', 'a lookahead', { patternProperties: { '^(?=a)': true } }, 'pattern at /patternProperties/^(?=a)'],
      ['input_schema', 'a dynamic reference', { $dynamicAnchor: 'x', $dynamicRef: '#x' }, 'dynamic reference at /$dynamicRef'],
      ['output_schema', 'a reference loop', { properties: { a: { $ref: '#/properties/a' } } }, 'recurses without end'],
    ])('%s with %s', async (field, _what, schema, detail) => {
      const created = await h.api('POST', '/v2/models', {
        body: {
          name: 'unrunnable',
          description: '',
          metadata: {},
          handlers: MANUAL,
          handler_contracts: { inference: { [field]: schema } },
        },
      });
      expect(created.status).toBe(400);
      expect(created.body.message).toContain(`handler_contracts.inference.${field}`);
      expect(created.body.message).toContain(detail);
      const modelId = await activeModel(h, { handlers: MANUAL });
      const changed = await h.api('PUT', `/v2/models/${modelId}`, { body: { handler_contracts: { training: { [field]: schema } } } });
      expect(changed.status).toBe(400);
      expect(changed.body.message).toContain(`handler_contracts.training.${field}`);
    });
  });

  it('a stored schema the validator cannot run fails the input instead of answering 500', async () => {
    // As one stored before these checks existed.
    const modelId = await activeModel(h, { handlers: MANUAL, handler_contracts: { inference: { input_schema: { type: 'object' } } } });
    await h
      .knex('models')
      .where({ id: modelId })
      .update({ handler_contracts: { inference: { input_schema: { $dynamicAnchor: 'x', $dynamicRef: '#x' } } } });
    const res = await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: { input: {} } });
    expect(res.status).toBe(422);
    expect(res.body.message).toContain('recurses without end');
  });
});
