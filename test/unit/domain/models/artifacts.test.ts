import { artifactsProblem, reportedArtifacts, uriProblem } from '../../../../src/domain/models/artifacts';

const DIGEST = '0123456789abcdef'.repeat(4);
const artifact = (extra: Record<string, unknown> = {}) => ({
  name: 'model',
  uri: 's3://ml-models/fares/model.onnx',
  sha256: DIGEST,
  size_bytes: 10,
  format: 'onnx',
  ...extra,
});

describe('artifact URIs', () => {
  it.each([
    's3://ml-models/fares/model.onnx',
    's3://my.bucket-1/a',
    'gs://ml_models/fares/model.pt',
    'https://models.example.com/fares/1/model.onnx?version=3',
    'file:///mnt/models/model.onnx',
  ])('accepts %s', (uri) => expect(uriProblem(uri)).toBeUndefined());

  it.each([
    ['ftp://host/m', 'schemes'],
    ['http://models.example.com/m', 'schemes'],
    ['s3://ab/key', 'bucket'],
    ['s3://Bucket/key', 'bucket'],
    ['s3://bucket/', 'bucket'],
    ['gs://bucket', 'bucket'],
    ['https://user:secret@host/m', 'credentials'],
    ['file://host/m', 'absolute path'],
    ['file:///', 'absolute path'],
    ['s3://bucket/a b', 'whitespace'],
    ['https://host/' + 'a'.repeat(2048), 'longer'],
    ['models/m.onnx', 'schemes'],
  ])('refuses %s (%s)', (uri, words) => expect(uriProblem(uri)).toContain(words));
});

describe('artifact lists', () => {
  it('accepts an empty list and a valid one', () => {
    expect(artifactsProblem([])).toBeUndefined();
    expect(artifactsProblem([artifact(), artifact({ name: 'tokenizer', format: 'sentencepiece' })])).toBeUndefined();
  });

  it.each([
    [{ sha256: DIGEST.toUpperCase() }, 'artifacts[0].sha256'],
    [{ sha256: DIGEST.slice(1) }, 'artifacts[0].sha256'],
    [{ size_bytes: 1.5 }, 'artifacts[0].size_bytes'],
    [{ size_bytes: -1 }, 'artifacts[0].size_bytes'],
    [{ format: '' }, 'artifacts[0].format'],
    [{ name: '../x' }, 'artifacts[0].name'],
    [{ extra: 1 }, 'unknown field extra'],
    [{ uri: 'ftp://x/y' }, 'artifacts[0].uri'],
  ])('names the field of %j', (change, words) => expect(artifactsProblem([artifact(change)])).toContain(words));

  it('refuses a name used twice and more than 32 artifacts', () => {
    expect(artifactsProblem([artifact(), artifact()])).toContain('artifacts[1].name model is used twice');
    const many = Array.from({ length: 33 }, (_, i) => artifact({ name: `a${i}` }));
    expect(artifactsProblem(many)).toContain('at most 32');
  });
});

describe("a training job's reported artifacts", () => {
  it('reads output.artifacts in the documented shape', () => {
    expect(reportedArtifacts({ artifacts: [artifact()], loss: 0.1 })).toEqual({ artifacts: [artifact()] });
  });
  it('says none when the output has none', () => {
    expect(reportedArtifacts({ loss: 0.1 })).toEqual({ none: true });
    expect(reportedArtifacts(null)).toEqual({ none: true });
  });
  it('names the problem of a list that does not parse', () => {
    expect(reportedArtifacts({ artifacts: 'model.onnx' })).toEqual({ problem: 'output.artifacts must be an array' });
    expect(reportedArtifacts({ artifacts: [artifact({ sha256: 'x' })] })).toMatchObject({
      problem: expect.stringContaining('output.artifacts[0].sha256'),
    });
  });
});
