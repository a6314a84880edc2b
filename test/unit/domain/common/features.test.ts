import { FeatureRules, FeatureDefinition } from '../../../../src/domain/common/features';
import { UserSchemaCompiler } from '../../../../src/domain/common/json-schemas';
import { freezeIncompatibilities } from '../../../../src/domain/common/freeze';

const rules = new FeatureRules(new UserSchemaCompiler());
const defs: FeatureDefinition[] = [
  { name: 'seats', json_schema: { type: 'integer', minimum: 1 }, mandatory: true },
  { name: 'cabin', json_schema: { enum: ['economy', 'business'], default: 'economy' }, mandatory: true },
  {
    name: 'legs',
    json_schema: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'string' }], minItems: 2, maxItems: 2 },
    mandatory: false,
  },
  { name: 'fare', json_schema: { oneOf: [{ type: 'number', maximum: 100 }, { const: 'free' }] }, mandatory: false },
];

describe('feature definitions', () => {
  it('accepts every keyword the spec names for values', () => {
    expect(rules.definitionProblems(defs)).toEqual([]);
  });

  it('reports each offending feature by name', () => {
    const problems = rules.definitionProblems([
      { name: 'ok', json_schema: { type: 'string' }, mandatory: false },
      { name: 'bad-type', json_schema: { type: 'text' }, mandatory: false },
      { name: 'extra', json_schema: { type: 'object', properties: {} }, mandatory: false },
      { name: 'bad-default', json_schema: { type: 'integer', default: 'x' }, mandatory: false },
    ]);
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^feature "bad-type": json_schema is not a valid JSON Schema/);
    expect(problems[1]).toMatch(/^feature "extra": .*properties/);
    expect(problems[2]).toMatch(/^feature "bad-default": default/);
  });

  it('checks keywords inside items, prefixItems and oneOf', () => {
    expect(
      rules.definitionProblems([{ name: 'x', json_schema: { oneOf: [{ type: 'string', format: 'email' }] }, mandatory: false }])[0],
    ).toContain('oneOf[0].format');
  });

  it('throws the spec 422 for invalid definitions', () => {
    expect(() => rules.assertValidDefinitions([{ name: '', json_schema: {}, mandatory: true }])).toThrow(/invalid feature definitions/);
  });
});

describe('feature values', () => {
  it('applies defaults to omitted features and keeps provided ones', () => {
    expect(rules.resolve(defs, { seats: 3 })).toEqual({ seats: 3, cabin: 'economy' });
    expect(rules.resolve(defs, { seats: 3, cabin: 'business', fare: 'free' })).toEqual({ seats: 3, cabin: 'business', fare: 'free' });
  });

  it('copies defaults, so resolved features never share objects with the schema', () => {
    const withList: FeatureDefinition[] = [{ name: 'tags', json_schema: { type: 'array', default: [] }, mandatory: false }];
    const resolved = rules.resolve(withList, {});
    (resolved.tags as string[]).push('mutated');
    expect(withList[0].json_schema.default).toEqual([]);
  });

  it('requires mandatory features only when they have no default', () => {
    expect(rules.valueProblems(defs, {})).toEqual([{ feature: 'seats', value: null, message: 'is mandatory and has no default' }]);
  });

  it('rejects unknown features and values failing their schema', () => {
    const problems = rules.valueProblems(defs, { seats: 0, legs: ['FRA'], fare: 101, wifi: true });
    expect(problems.map((p) => p.feature)).toEqual(['seats', 'legs', 'fare', 'wifi']);
    expect(problems.find((p) => p.feature === 'wifi')!.message).toContain('not defined');
  });
});

describe('freeze compatibility', () => {
  it('is empty when provided features satisfy the freeze', () => {
    expect(freezeIncompatibilities(rules, defs, { seats: 1, legs: ['FRA', 'JFK'] })).toEqual([]);
  });

  it('reports each incompatible feature with the stored value', () => {
    const frozen: FeatureDefinition[] = [{ name: 'cabin', json_schema: { type: 'integer' }, mandatory: true }];
    expect(freezeIncompatibilities(rules, frozen, { cabin: 'business', seats: 3 })).toEqual([
      { feature: 'cabin', value: 'business', message: expect.any(String) },
      { feature: 'seats', value: 3, message: 'is not defined by the feature contract' },
    ]);
  });
});

describe('schema cache', () => {
  it('compiles equal schemas once, whatever their key order', () => {
    const compiler = new UserSchemaCompiler();
    compiler.validate({ type: 'integer', minimum: 1 }, 2);
    compiler.validate({ minimum: 1, type: 'integer' }, 3);
    expect(compiler.size).toBe(1);
  });

  it('keeps user $id values from colliding', () => {
    const compiler = new UserSchemaCompiler();
    expect(compiler.validate({ $id: 'https://example.com/contract.json', type: 'string' }, 'a')).toBeUndefined();
    expect(compiler.validate({ $id: 'https://example.com/contract.json', type: 'integer' }, 1)).toBeUndefined();
  });
});
