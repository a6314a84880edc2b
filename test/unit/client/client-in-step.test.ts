import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { renderDocument } from '../../../client/generate';

const root = path.resolve(__dirname, '../../..');

describe('the typed client in client/ (regenerate with npm run client:generate)', () => {
  it('was generated from the document the service serves', () => {
    expect(readFileSync(path.join(root, 'client/openapi.json'), 'utf8')).toBe(renderDocument());
  });

  it('has the types openapi-typescript makes of that document', () => {
    // The same CLI and flags as the npm script, in a child process: its dependencies are ES modules jest cannot load.
    const cli = path.join(root, 'node_modules/openapi-typescript/bin/cli.js');
    const run = spawnSync(process.execPath, [cli, 'client/openapi.json', '--empty-objects-unknown'], { cwd: root, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(readFileSync(path.join(root, 'client/schema.d.ts'), 'utf8')).toBe(run.stdout);
  });
});
