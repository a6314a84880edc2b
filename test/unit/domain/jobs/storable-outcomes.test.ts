import {
  MAX_OUTPUT_BYTES,
  MAX_OUTPUT_DEPTH,
  MAX_OUTPUT_VALUES,
  storableError,
  storableReport,
  storableText,
  unstorableReason,
} from '../../../../src/domain/jobs/run/storable-outcomes';

const nested = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
};

/** What a job's record can hold (src/domain/jobs/run/storable-outcomes.ts): the rule every path to the record applies. */
describe('storable outcomes', () => {
  it.each([
    ['a NUL in a value', { a: { b: 'x\u0000y' } }, 'output holds a NUL character at $.a.b'],
    ['a lone high surrogate', { a: ['ok', '\ud800'] }, 'output holds a lone surrogate (not valid Unicode) at $.a[1]'],
    ['a lone low surrogate', { s: 'x\udc00' }, 'output holds a lone surrogate (not valid Unicode) at $.s'],
    ['a NUL in a key', { ['k\u0000']: 1 }, 'output holds a NUL character in a key at $["k\uFFFD"]'],
    ['a bigint', { n: 1n }, 'output holds a bigint, which JSON cannot carry, at $.n'],
  ])('names %s and where it is', (_what, output, reason) => {
    expect(unstorableReason(output)).toBe(reason);
  });

  it('bounds the nesting depth without overflowing on 20,000 levels', () => {
    expect(unstorableReason(nested(MAX_OUTPUT_DEPTH - 1))).toBeUndefined();
    expect(unstorableReason(nested(20000))).toMatch(`output is nested deeper than ${MAX_OUTPUT_DEPTH} levels at $.a.a.a`);
  });

  it('stops at a cyclic value', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(unstorableReason(cyclic)).toMatch(/nested deeper than/);
  });

  it('bounds the number of values and the size', () => {
    expect(unstorableReason({ items: new Array(MAX_OUTPUT_VALUES - 2).fill(0) })).toBeUndefined();
    expect(unstorableReason({ items: new Array(200000).fill(0) })).toBe(
      `output holds more than ${MAX_OUTPUT_VALUES} values (an array of 200000 at $.items)`,
    );
    expect(unstorableReason({ text: 'x'.repeat(MAX_OUTPUT_BYTES) })).toMatch(`over the limit of ${MAX_OUTPUT_BYTES}`);
  });

  it('makes text storable: NUL replaced, lone surrogates dropped, cut on a code point', () => {
    expect(storableText('a\u0000b')).toBe('a\uFFFDb');
    expect(storableText('x\ud800y\udc00')).toBe('xy');
    const cutMidEmoji = `${'a'.repeat(999)}😀tail`; // the emoji's pair spans units 999 and 1000
    expect(storableText(cutMidEmoji)).toBe('a'.repeat(999));
    expect(storableText(`${'a'.repeat(998)}😀`)).toBe(`${'a'.repeat(998)}😀`);
  });

  it('turns a success whose output cannot be stored into a failure with the reason output_unstorable', () => {
    expect(storableReport({ status: 'success', output: { a: { b: '\u0000' } } })).toEqual({
      status: 'failure',
      error: { message: 'output holds a NUL character at $.a.b', reason: 'output_unstorable' },
    });
    const fine = { status: 'success' as const, output: { a: 1 } };
    expect(storableReport(fine)).toBe(fine);
  });

  it('keeps a storable error as it is and makes an unstorable one storable, saying what it dropped', () => {
    const fine = { status: 'failure' as const, error: { message: 'no', code: 7 } };
    expect(storableReport(fine)).toEqual(fine);
    expect(storableError({ message: 'bad\u0000', detail: { deep: nested(100) } })).toEqual({
      message: 'bad\uFFFD',
      detail_dropped: expect.stringMatching(/^error is nested deeper than 64 levels at \$\.detail/),
    });
  });
});
