import { readFileSync } from 'node:fs';
import path from 'node:path';
import { renderRouteTable } from '../../../src/openapi/route-table';

describe('documentation', () => {
  it('keeps the route → permission table in docs/authorization.md in step with the code', () => {
    const doc = readFileSync(path.resolve(__dirname, '../../../docs/authorization.md'), 'utf8');
    expect(doc).toContain(renderRouteTable());
  });
});
