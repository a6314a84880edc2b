import { readFileSync } from 'node:fs';
import path from 'node:path';
import { typeErrors } from '../helpers/type-errors';

const root = path.resolve(__dirname, '../..');
const clientDir = path.join(root, 'client');

/** A call of the service init route with `body` (and `pathParams`) in place of the example's. */
const initCall = (body: string, pathParams = "{ client_id: 'acme', domain_id: 'flights' }") => `
import { createApiClient } from './index';
export async function call() {
  const api = createApiClient({ baseUrl: 'http://localhost:8080', token: 't' });
  return api.POST('/v2/clients/{client_id}/domains/{domain_id}/service/init', { params: { path: ${pathParams} }, body: ${body} });
}
`;
const VALID_BODY = "{ service_id: 'LH-400', departure_datetime: '2031-07-01T09:30:00Z', static_features: { seats: 180 } }";

describe("the typed client's README", () => {
  it('shows client/example.ts as it is, so the example it shows is the one compiled and run', () => {
    const readme = readFileSync(path.join(clientDir, 'README.md'), 'utf8');
    const shown = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map(([, code]) => code);
    expect(shown).toEqual([readFileSync(path.join(clientDir, 'example.ts'), 'utf8')]);
  });

  it('holds what it claims: wrong paths, missing fields and wrongly typed values do not compile; unknown fields do', () => {
    const errors = typeErrors('client', {
      'example-as-shipped.ts': readFileSync(path.join(clientDir, 'example.ts'), 'utf8'),
      'valid.ts': initCall(VALID_BODY),
      'unknown-path.ts': initCall(VALID_BODY).replace('/service/init', '/service/start'),
      'missing-field.ts': initCall("{ departure_datetime: '2031-07-01T09:30:00Z', static_features: {} }"),
      'wrong-type.ts': initCall("{ service_id: 'LH-400', departure_datetime: 20310701, static_features: {} }"),
      'missing-path-param.ts': initCall(VALID_BODY, "{ client_id: 'acme' }"),
      'unknown-field.ts': initCall(VALID_BODY.replace(' }', ", nmae: 'typo' }")),
    });
    expect(errors).toMatchObject({ 'example-as-shipped.ts': [], 'valid.ts': [], 'unknown-field.ts': [] });
    expect(
      ['unknown-path.ts', 'missing-field.ts', 'wrong-type.ts', 'missing-path-param.ts'].filter((file) => errors[file].length === 0),
    ).toEqual([]);
  });
});
