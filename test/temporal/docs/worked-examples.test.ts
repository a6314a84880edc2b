import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { bashBlocks, root, startDocRunner } from '../../helpers/doc-runner';

/**
 * The worked examples of docs/schedules.md and docs/progressive-delivery.md, run as written, one after the other on
 * one dev runner, as a reader trying both against one `npm start` would: each page uses names of its own.
 */
describe('the worked examples of docs/schedules.md and docs/progressive-delivery.md, on one service', () => {
  let doc: Awaited<ReturnType<typeof startDocRunner>>;
  beforeAll(async () => {
    doc = await startDocRunner('worked-examples');
  });
  afterAll(() => doc?.stop());

  async function run(page: string, blocks: string[], timeout: number) {
    const script = ['set -euo pipefail', ...blocks].join('\n').replace(/^export (API|TOKEN)=.*$/gm, '');
    return promisify(execFile)('bash', ['-c', script], {
      cwd: root,
      encoding: 'utf8',
      timeout,
      env: { ...process.env, API: doc.runner.apiUrl, TOKEN: doc.runner.adminToken },
    }).then(
      (r) => r.stdout,
      (err) => {
        throw new Error(`the worked example of ${page} failed (exit ${err.code}):\n${err.stdout}\n${err.stderr}`);
      },
    );
  }

  it('docs/schedules.md: schedules each service of the domain nightly, fires one now, and pauses and resumes them all', async () => {
    const blocks = bashBlocks('docs/schedules.md', 'Worked example');
    expect(blocks).toHaveLength(6);
    const out = await run('docs/schedules.md', blocks, 90000);
    const lines = out.trimEnd().split('\n');
    expect(out).toMatch(/"would_start": true,\s+"job": "LH-400"/); // the dry run, which wrote nothing
    expect(lines.slice(-8)).toEqual([
      '2',
      '{"kind":"trigger","overlap":"skip"}',
      expect.stringMatching(/^\{"trigger":"schedule","service_id":"LH-40[02]","status":"success"\}$/),
      '{"paused":true,"note":"fleet migration"}',
      '{"paused":true,"note":"fleet migration"}',
      '{"paused":false,"note":"migration done"}',
      '{"paused":false,"note":"migration done"}',
      '{"paused":false,"runs":["started"]}',
    ]);
  }, 120000);

  it('docs/progressive-delivery.md, next: takes a canary from 10 % to 50 % and promotes it, then rolls back a shadow that disagrees, printing what the page says', async () => {
    const blocks = bashBlocks('docs/progressive-delivery.md', 'Worked example');
    expect(blocks).toHaveLength(7);
    const out = await run('docs/progressive-delivery.md', blocks, 120000);
    // The page's `text` block is what the others print.
    const page = readFileSync(path.join(root, 'docs/progressive-delivery.md'), 'utf8');
    const printed = /```text\n([\s\S]*?)```/.exec(page)![1];
    expect(out.trimEnd()).toEqual(printed.trimEnd());
  }, 150000);
});
