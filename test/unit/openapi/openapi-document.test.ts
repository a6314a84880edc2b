import { buildOpenApiDocument } from '../../../src/openapi/document';

type Content = Record<string, { example?: unknown; examples?: unknown }>;
type Response = { $ref?: string; content?: Content };
type Operation = { operationId: string; tags: string[]; responses: Record<string, Response> };

const document = buildOpenApiDocument();
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.values(item as Record<string, Operation>).map((op) => ({ path, op })),
);
const components = document.components.responses as Record<string, Response>;
const resolve = (response: Response) => (response.$ref ? components[response.$ref.split('/').pop()!] : response);

describe('the OpenAPI document', () => {
  it('groups the health probes and the metrics under Health, and only registry routes under Models', () => {
    const tagOf = (path: string) => operations.find((o) => o.path === path)?.op.tags;
    expect(['/v2/health', '/v2/health/live', '/v2/health/ready', '/metrics'].map(tagOf)).toEqual(Array(4).fill(['Health']));
    const models = operations.filter(({ op }) => op.tags.includes('Models')).map(({ path }) => path);
    // The registry: the model routes, and the search of versions across models.
    expect(models.filter((path) => !path.startsWith('/v2/models') && path !== '/v2/model-versions')).toEqual([]);
  });

  it('has an example for every response body, errors included', () => {
    const missing = operations.flatMap(({ op }) =>
      Object.entries(op.responses).flatMap(([status, response]) =>
        Object.entries(resolve(response).content ?? {})
          .filter(([, media]) => media.example === undefined && media.examples === undefined)
          .map(([type]) => `${op.operationId} ${status} ${type}`),
      ),
    );
    expect(operations.length).toBeGreaterThan(90);
    expect(missing).toEqual([]);
  });
});
