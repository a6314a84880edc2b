import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { bashBlocks, root, startDocRunner } from '../helpers/doc-runner';

/** docs/progressive-delivery.md's worked example, run as written against a fresh dev runner (as the schedules example is). */
describe('the worked example of docs/progressive-delivery.md', () => {
  let doc: Awaited<ReturnType<typeof startDocRunner>>;
  beforeAll(async () => {
    doc = await startDocRunner('progressive-delivery-example');
  });
  afterAll(() => doc?.stop());

  it('takes a canary from 10 % to 50 % and promotes it, then rolls back a shadow that disagrees, printing what the page says', async () => {
    const blocks = bashBlocks('docs/progressive-delivery.md', 'Worked example');
    expect(blocks).toHaveLength(7);
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
    // The page's `text` block is what the others print.
    const page = readFileSync(path.join(root, 'docs/progressive-delivery.md'), 'utf8');
    const printed = /```text\n([\s\S]*?)```/.exec(page)![1];
    expect(out.trimEnd()).toEqual(printed.trimEnd());
  });
});
