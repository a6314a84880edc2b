import { MAX_VALIDATED_DEPTH, UserSchemaCompiler } from '../../../../src/domain/common/json-schemas';
import { FeatureRules } from '../../../../src/domain/common/features';

const CATASTROPHIC = '^(a+)+$';
// On a backtracking engine this input takes about 2^40 steps: 0.6 s at 26 characters, doubling with each one.
const POISON = `${'a'.repeat(39)}!`;

function timed<T>(run: () => T): { result: T; ms: number } {
  const start = performance.now();
  const result = run();
  return { result, ms: performance.now() - start };
}

describe('user schemas: patterns run in linear time', () => {
  const schemas = new UserSchemaCompiler();

  it.each([
    ['pattern', { type: 'object', properties: { s: { type: 'string', pattern: CATASTROPHIC } } }, { s: POISON }],
    ['patternProperties', { type: 'object', patternProperties: { [CATASTROPHIC]: true }, additionalProperties: false }, { [POISON]: 1 }],
    ['propertyNames', { type: 'object', propertyNames: { pattern: CATASTROPHIC } }, { [POISON]: 1 }],
  ])('answers a 40-character input to %s within 50 ms', (_keyword, schema, value) => {
    expect(schemas.check(schema)).toBeUndefined();
    const { result, ms } = timed(() => schemas.validate(schema, value));
    expect(ms).toBeLessThan(50);
    expect(result).toMatch(/must/);
  });

  it('still matches what ECMAScript patterns match', () => {
    const schema = { type: 'string', pattern: '^(?<year>\\d{4})-\\u00e9\\p{L}+$' };
    expect(schemas.validate(schema, '2026-éa')).toBeUndefined();
    expect(schemas.validate(schema, '2026-e')).toMatch(/must match pattern/);
  });

  it('keeps two patterns of one schema apart', () => {
    const schema = { type: 'object', properties: { a: { pattern: '^a$' }, b: { pattern: '^b$' } } };
    expect(schemas.validate(schema, { a: 'a', b: 'b' })).toBeUndefined();
    expect(schemas.validate(schema, { a: 'b', b: 'a' })).toMatch(/\/a .*\/b /);
  });
});

describe('user schemas: what the validator cannot run is refused when stored', () => {
  const schemas = new UserSchemaCompiler();

  it.each([
    ['a backreference', { properties: { s: { pattern: '^(a)\\1$' } } }, '/properties/s/pattern'],
    ['a named backreference', { properties: { s: { pattern: '^(?<x>a)\\k<x>$' } } }, '/properties/s/pattern'],
    ['a lookahead', { items: { pattern: '^(?=a)a+$' } }, '/items/pattern'],
    ['a lookbehind', { patternProperties: { '(?<=a)b': true } }, '/patternProperties/(?<=a)b'],
  ])('refuses %s, naming the schema path', (_what, schema, path) => {
    const problem = schemas.check(schema);
    expect(problem).toEqual({ unrunnable: true, message: expect.stringContaining(`pattern at ${path}`) });
  });

  it('refuses a dynamic reference', () => {
    expect(schemas.check({ $dynamicAnchor: 'x', $dynamicRef: '#x' })).toEqual({
      unrunnable: true,
      message: expect.stringContaining('dynamic reference at /$dynamicRef'),
    });
  });

  it.each([
    ['on every value', { $id: 'https://example.com/s', $ref: '#' }],
    ['through a property', { properties: { a: { $ref: '#/properties/a' } } }],
    ['between definitions', { $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } }],
  ])('refuses a reference that loops without end %s', (_how, schema) => {
    expect(schemas.check(schema)).toEqual({ unrunnable: true, message: expect.stringMatching(/recurses without end|loop without end/) });
  });

  it('refuses references that fan out past the time budget', () => {
    const $defs: Record<string, object> = { a22: { type: 'string' } };
    for (let i = 0; i < 22; i++) $defs[`a${i}`] = { anyOf: [{ $ref: `#/$defs/a${i + 1}` }, { $ref: `#/$defs/a${i + 1}` }] };
    const { result, ms } = timed(() => schemas.check({ $defs, $ref: '#/$defs/a0' }));
    expect(result).toEqual({ unrunnable: true, message: expect.stringContaining('could not be validated within 250 ms') });
    expect(ms).toBeLessThan(2000);
  });

  it('accepts a recursive schema that consumes its data', () => {
    const tree = { $id: 'https://example.com/tree', type: 'object', properties: { children: { type: 'array', items: { $ref: '#' } } } };
    expect(schemas.check(tree)).toBeUndefined();
    expect(schemas.validate(tree, { children: [{ children: [] }] })).toBeUndefined();
  });
});

describe('user schemas: every validation of user data is bounded', () => {
  const schemas = new UserSchemaCompiler();

  it(`fails data nested deeper than ${MAX_VALIDATED_DEPTH} levels instead of throwing`, () => {
    let deep: unknown = 1;
    for (let i = 0; i < 20_000; i++) deep = [deep];
    expect(schemas.validate({ $ref: '#/$defs/any', $defs: { any: { items: { $ref: '#/$defs/any' } } } }, deep)).toMatch(
      /nested deeper than 64/,
    );
  });

  it('fails a validation whose schema loops, instead of throwing', () => {
    // Stored before the refusal existed: validating against it must be a failure, never a 500.
    expect(schemas.validate({ $dynamicAnchor: 'x', $dynamicRef: '#x' }, {})).toMatch(/recurses without end/);
  });

  it('checks uniqueItems in linear time', () => {
    const items = Array.from({ length: 60_000 }, (_, i) => ({ a: i }));
    const schema = { type: 'array', uniqueItems: true };
    const { result, ms } = timed(() => schemas.validate(schema, items));
    expect(result).toBeUndefined();
    expect(ms).toBeLessThan(2000);
    expect(
      schemas.validate(schema, [
        { a: 1, b: 2 },
        { b: 2, a: 1 },
      ]),
    ).toBeDefined();
  });
});

describe('feature schemas', () => {
  it('refuses a pattern when stored', () => {
    const rules = new FeatureRules(new UserSchemaCompiler());
    const problems = rules.definitionProblems([{ name: 'code', json_schema: { type: 'string', pattern: CATASTROPHIC }, mandatory: true }]);
    expect(problems).toEqual([expect.stringContaining('json_schema uses keywords not allowed for feature values: pattern')]);
  });
});
