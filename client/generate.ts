import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { buildOpenApiDocument } from '../src/openapi/document';

/** client/openapi.json: the document the service serves, from which schema.d.ts is generated. */
export function renderDocument(): string {
  return `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
}

// `npm run client:generate` runs this from dist/client, then openapi-typescript on the file it writes.
if (require.main === module) {
  const file = path.resolve(__dirname, path.basename(path.dirname(__dirname)) === 'dist' ? '../../client' : '.', 'openapi.json');
  writeFileSync(file, renderDocument());
}
