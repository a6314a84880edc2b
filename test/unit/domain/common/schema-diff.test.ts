import { diffSchemas, isBreaking } from '../../../../src/domain/common/schema-diff';
import { featureContractMismatches, freezeAsSchema } from '../../../../src/domain/common/freeze';

const kinds = (before: unknown, after: unknown) => diffSchemas(before, after).map((c) => `${c.path} ${c.kind} ${c.breaking}`);

describe('schema diff', () => {
  it('finds nothing between equal schemas', () => {
    const s = { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] };
    expect(diffSchemas(s, structuredClone(s))).toEqual([]);
  });

  it('reports a removed property as breaking, in words', () => {
    const changes = diffSchemas({ type: 'object', properties: { a: {}, b: {} } }, { type: 'object', properties: { a: {} } });
    expect(changes).toEqual([{ path: 'b', kind: 'property_removed', breaking: true, reason: 'b: property removed' }]);
  });

  it('reports number → integer as a narrowed type and integer → number as a widened one', () => {
    expect(diffSchemas({ type: 'number' }, { type: 'integer' }, 'threshold')).toEqual([
      { path: 'threshold', kind: 'type_narrowed', breaking: true, reason: 'threshold: type narrowed (number → integer)' },
    ]);
    expect(kinds({ type: 'integer' }, { type: 'number' })).toEqual([' type_widened false']);
    expect(kinds({ type: 'string' }, { type: 'integer' })).toEqual([' type_changed true']);
  });

  it('reports a new required field as breaking and a dropped requirement as compatible', () => {
    const before = { type: 'object', properties: { a: {} }, required: [] };
    const after = { type: 'object', properties: { a: {}, b: {} }, required: ['b'] };
    expect(kinds(before, after)).toEqual(['b property_added false', 'b new_required_field true']);
    expect(kinds({ required: ['a'] }, { required: [] })).toEqual(['a field_no_longer_required false']);
  });

  it('reports a removed enum value as breaking and an added one as compatible', () => {
    expect(kinds({ enum: ['x', 'y'] }, { enum: ['x', 'z'] })).toEqual([' enum_value_removed true', ' enum_value_added false']);
    expect(diffSchemas({ enum: ['x', 'y'] }, { enum: ['x'] })[0].reason).toBe('(value): enum value "y" removed');
  });

  it('reports a changed default as breaking (resolved values change silently)', () => {
    expect(diffSchemas({ default: 'economy' }, { default: 'business' })[0]).toMatchObject({
      kind: 'default_changed',
      breaking: true,
      reason: '(value): default changed ("economy" → "business")',
    });
  });

  it('reports tighter bounds as breaking and looser ones as compatible', () => {
    expect(kinds({ maximum: 500 }, { maximum: 100 })).toEqual([' range_narrowed true']);
    expect(kinds({ minimum: 5 }, { minimum: 1 })).toEqual([' range_widened false']);
  });

  it('walks nested properties and array items', () => {
    const before = {
      type: 'object',
      properties: { o: { type: 'object', properties: { n: { type: 'number' } } }, l: { items: { type: 'string' } } },
    };
    const after = {
      type: 'object',
      properties: { o: { type: 'object', properties: { n: { type: 'integer' } } }, l: { items: { type: 'integer' } } },
    };
    expect(kinds(before, after)).toEqual(['o.n type_narrowed true', 'l[] type_changed true']);
  });

  it('reports keywords it does not derive as a breaking schema change', () => {
    expect(kinds({ pattern: '^a' }, { pattern: '^b' })).toEqual([' schema_changed true']);
  });

  it('isBreaking is true only with a breaking change', () => {
    expect(isBreaking(diffSchemas({ type: 'integer' }, { type: 'number' }))).toBe(false);
    expect(isBreaking(diffSchemas({ type: 'number' }, { type: 'integer' }))).toBe(true);
  });
});

describe('feature freeze against domain features', () => {
  const seats = { name: 'seats', json_schema: { type: 'integer' }, mandatory: true };
  const cabin = { name: 'cabin', json_schema: { enum: ['economy', 'business'], default: 'economy' }, mandatory: true };

  it('reports every domain feature missing from an empty freeze (a version born without one)', () => {
    const found = featureContractMismatches([seats, cabin], []);
    expect(found.map((m) => `${m.feature} ${m.kind}`)).toEqual(['seats missing_from_freeze', 'cabin missing_from_freeze']);
    expect(found[0].message).toContain('is not defined by the feature contract');
  });

  it('finds nothing when they agree', () => {
    expect(featureContractMismatches([seats, cabin], [seats, cabin])).toEqual([]);
  });

  it('reports schema and mandatory differences and features only the freeze has', () => {
    const narrowed = { ...cabin, json_schema: { enum: ['economy'], default: 'economy' } };
    const extra = { name: 'meal', json_schema: { type: 'string' }, mandatory: true };
    const found = featureContractMismatches([seats, cabin], [{ ...seats, mandatory: false }, narrowed, extra]);
    expect(found.map((m) => `${m.feature} ${m.kind}`)).toEqual([
      'seats mandatory_differs',
      'cabin schema_differs',
      'meal missing_from_domain',
    ]);
    expect(found[1].message).toBe('feature "cabin" has another schema in the freeze than in the domain: enum value "business" removed');
    expect(found[2].message).toContain('every init must send it');
  });

  it('turns a freeze into one object schema whose required list is the mandatory features without a default', () => {
    expect(freezeAsSchema([seats, cabin])).toEqual({
      type: 'object',
      properties: { seats: seats.json_schema, cabin: cabin.json_schema },
      required: ['seats'],
      additionalProperties: false,
    });
  });
});
