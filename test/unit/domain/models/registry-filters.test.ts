import { parseMetadataFilter, parseTagFilter } from '../../../../src/domain/models/model-search.service';

describe('registry search filters', () => {
  it('reads a tag filter as a key alone or a key and the value after the first =', () => {
    expect(parseTagFilter('team')).toEqual({ key: 'team', value: undefined });
    expect(parseTagFilter('dataset=s3://fares/a=b')).toEqual({ key: 'dataset', value: 's3://fares/a=b' });
    expect(parseTagFilter('stage=')).toEqual({ key: 'stage', value: '' });
  });

  it.each(['bad key', '-team=x', '=x', `team=${'x'.repeat(257)}`, 'team=a\tb'])(
    'refuses the tag filter %j naming the parameter',
    (text) => {
      expect(() => parseTagFilter(text)).toThrow(/query parameter tag/);
    },
  );

  it('reads a metadata path into nested containment, with the literal the value reads as besides the text', () => {
    expect(parseMetadataFilter('dataset.name=fares')).toEqual([{ dataset: { name: 'fares' } }]);
    expect(parseMetadataFilter('epochs=10')).toEqual([{ epochs: '10' }, { epochs: 10 }]);
    expect(parseMetadataFilter('a.b=-1.5e3')).toEqual([{ a: { b: '-1.5e3' } }, { a: { b: -1500 } }]);
    expect(parseMetadataFilter('done=true')).toEqual([{ done: 'true' }, { done: true }]);
    expect(parseMetadataFilter('note=null')).toEqual([{ note: 'null' }, { note: null }]);
    // Not a JSON number: matched as text only.
    expect(parseMetadataFilter('v=01')).toEqual([{ v: '01' }]);
  });

  it.each(['dataset', 'a..b=1', '.a=1', 'a.b.c.d.e.f.g.h.i=1', 'a b=1', 'a=x\ny'])(
    'refuses the metadata filter %j naming the parameter',
    (text) => {
      expect(() => parseMetadataFilter(text)).toThrow(/query parameter metadata/);
    },
  );
});
