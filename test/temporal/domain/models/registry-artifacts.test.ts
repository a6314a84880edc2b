import { Harness, uid } from '../../../helpers/harness';
import { ECHO_HANDLERS, FEATURES } from '../../../helpers/fixtures';

const DIGEST = 'a'.repeat(64);
const artifact = (extra: Record<string, unknown> = {}) => ({
  name: 'model',
  uri: 's3://ml-models/fares/model.onnx',
  sha256: DIGEST,
  size_bytes: 1048576,
  format: 'onnx',
  ...extra,
});

describe('registry: artifacts and lineage', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ worker: true });
  });
  afterAll(() => h.stop());

  const model = async (extra: Record<string, unknown> = {}) => {
    const id = uid('model');
    const res = await h.api('POST', '/v2/models', {
      body: { id, name: id, description: '', metadata: {}, handlers: ECHO_HANDLERS, features: FEATURES, ...extra },
    });
    expect(res.status).toBe(201);
    return { id, version: res.body.version };
  };
  const version = async (modelId: string, v: string) => (await h.api('GET', `/v2/models/${modelId}/versions/${v}`)).body;
  const train = async (modelId: string, v: string, input: Record<string, unknown>) => {
    const started = await h.api('POST', `/v2/models/${modelId}/versions/${v}/train`, { body: { input } });
    expect(started.status).toBe(202);
    const done = await h.api('GET', `/v2/jobs/${started.body.job_id}?wait=30`);
    expect(done.body.status).toBe('success');
    return started.body.job_id as string;
  };

  it('stores artifacts and source given at creation, of the first version and of a new one', async () => {
    const { id, version: first } = await model({ version_artifacts: [artifact()], version_source: 'notebook run 17' });
    expect(first).toMatchObject({ artifacts: [artifact()], source: 'notebook run 17', source_job_id: null });
    const tokenizer = artifact({ name: 'tokenizer', uri: 'gs://ml-models/fares/tok.json', format: 'json', size_bytes: 0 });
    const created = await h.api('POST', `/v2/models/${id}/versions`, {
      body: { version: '2', features: FEATURES, artifacts: [artifact({ uri: 'https://models.example.com/fares/2.onnx' }), tokenizer] },
    });
    expect(created.status).toBe(201);
    expect((await version(id, '2')).artifacts).toEqual([artifact({ uri: 'https://models.example.com/fares/2.onnx' }), tokenizer]);
    expect((await version(id, '2')).source).toBeNull();
  });

  it.each([
    ['a scheme the registry does not store', { uri: 'ftp://host/model.onnx' }, 'artifacts[0].uri'],
    ['an s3 URI without a key', { uri: 's3://ml-models' }, 'artifacts[0].uri'],
    ['an s3 bucket name with capitals', { uri: 's3://ML_models/key' }, 'artifacts[0].uri'],
    ['credentials in an https URI', { uri: 'https://user:pw@models.example.com/m' }, 'artifacts[0].uri'],
    ['a file URI with a host', { uri: 'file://host/models/m.onnx' }, 'artifacts[0].uri'],
    ['a digest in capitals', { sha256: 'A'.repeat(64) }, 'sha256'],
    ['a digest too short', { sha256: 'abc' }, 'sha256'],
    ['a negative size', { size_bytes: -1 }, 'size_bytes'],
  ])('refuses %s with a 400 naming the field', async (_what, change, field) => {
    const { id } = await model();
    const res = await h.api('POST', `/v2/models/${id}/versions`, {
      body: { version: '2', features: FEATURES, artifacts: [artifact(change)] },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain(field);
    expect((await h.api('GET', `/v2/models/${id}/versions/2`)).status).toBe(404);
  });

  it('refuses two artifacts of one name with a 400 naming the second', async () => {
    const res = await h.api('POST', '/v2/models', {
      body: { name: 'x', description: '', metadata: {}, handlers: ECHO_HANDLERS, version_artifacts: [artifact(), artifact()] },
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('version_artifacts[1].name');
  });

  it("attaches a successful training's output.artifacts to its version as it becomes active, and links the job", async () => {
    const { id } = await model({ version_source: 'weekly retrain' });
    const reported = [artifact({ uri: 'file:///mnt/models/fares/1/model.onnx' })];
    const jobId = await train(id, '1', { dataset: 's3://fares/2026-11', artifacts: reported });
    const trained = await version(id, '1');
    expect(trained).toMatchObject({ status: 'active', artifacts: reported, source: 'weekly retrain', source_job_id: jobId });
    // Lineage: the job the version names holds the input it was trained with.
    const job = (await h.api('GET', `/v2/jobs/${trained.source_job_id}`)).body;
    expect(job).toMatchObject({ job_type: 'training', model_id: id, model_version: '1', input: { dataset: 's3://fares/2026-11' } });
  });

  it('activates the version without attaching output artifacts that do not parse, keeping those it was created with', async () => {
    const { id } = await model({ version_artifacts: [artifact()] });
    const jobId = await train(id, '1', { artifacts: [artifact({ sha256: 'not-a-digest' })] });
    expect(await version(id, '1')).toMatchObject({ status: 'active', artifacts: [artifact()], source_job_id: jobId });
  });

  it('changes artifacts while the version is not active, and answers 409 once it is, in the service and in the database', async () => {
    const { id } = await model();
    const replaced = await h.api('PUT', `/v2/models/${id}/versions/1/artifacts`, {
      body: { artifacts: [artifact()], source: 'manual upload' },
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ artifacts: [artifact()], source: 'manual upload' });
    expect((await h.api('PUT', `/v2/models/${id}/versions/1/new_status`, { body: { status: 'active' } })).status).toBe(200);

    const refused = await h.api('PUT', `/v2/models/${id}/versions/1/artifacts`, { body: { artifacts: [] } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('new version');
    await expect(
      h
        .knex('model_versions')
        .where({ model_id: id, version: '1' })
        .update({ artifacts: JSON.stringify([]) }),
    ).rejects.toThrow('cannot change');
    expect((await version(id, '1')).artifacts).toEqual([artifact()]);
  });
});
