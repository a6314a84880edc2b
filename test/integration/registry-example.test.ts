import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { bashBlocks, root, startDocRunner } from '../helpers/doc-runner';

/** docs/registry.md's worked example, run as written against a fresh dev runner (as the progressive delivery one is). */
describe('the worked example of docs/registry.md', () => {
  let doc: Awaited<ReturnType<typeof startDocRunner>>;
  beforeAll(async () => {
    doc = await startDocRunner('registry-example');
  });
  afterAll(() => doc?.stop());

  it('trains, attaches artifacts, aliases champion, has a domain follow it, moves it to version 2, and the next job runs 2', async () => {
    const blocks = bashBlocks('docs/registry.md', 'Worked example');
    expect(blocks).toHaveLength(5);
    const script = ['set -euo pipefail', ...blocks].join('\n').replace(/^export (API|TOKEN)=.*$/gm, '');
    const out = await promisify(execFile)('bash', ['-c', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 120000,
      env: { ...process.env, API: doc.runner.apiUrl, TOKEN: doc.runner.adminToken },
    }).then(
      (r) => r.stdout,
      (err) => {
        throw new Error(`the worked example failed (exit ${err.code}):\n${err.stdout}\n${err.stderr}`);
      },
    );
    const page = readFileSync(path.join(root, 'docs/registry.md'), 'utf8');
    const printed = /```text\n([\s\S]*?)```/.exec(page)![1];
    expect(out.trimEnd()).toEqual(printed.trimEnd());
  });
});
