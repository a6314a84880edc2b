import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { bashBlocks, root, startDocRunner } from '../helpers/doc-runner';

/** docs/schedules.md's nightly re-scoring, run as written against a fresh dev runner (as the README quick start is). */
describe('the worked example of docs/schedules.md', () => {
  let doc: Awaited<ReturnType<typeof startDocRunner>>;
  beforeAll(async () => {
    doc = await startDocRunner('schedules-example');
  });
  afterAll(() => doc?.stop());

  it('schedules each service of the domain nightly, fires one now, and pauses and resumes them all', async () => {
    const blocks = bashBlocks('docs/schedules.md', 'Worked example');
    expect(blocks).toHaveLength(6);
    const script = ['set -euo pipefail', ...blocks].join('\n').replace(/^export (API|TOKEN)=.*$/gm, '');
    const out = await promisify(execFile)('bash', ['-c', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 90000,
      env: { ...process.env, API: doc.runner.apiUrl, TOKEN: doc.runner.adminToken },
    }).then(
      (r) => r.stdout,
      (err) => {
        throw new Error(`the worked example failed (exit ${err.code}):\n${err.stdout}\n${err.stderr}`);
      },
    );
    const lines = out.trimEnd().split('\n');
    expect(out).toMatch(/"would_start": true,\s+"job": "LH-400"/); // the dry run, which wrote nothing
    expect(lines.slice(-8)).toEqual([
      '2',
      '{"kind":"trigger","overlap":"allow_all"}',
      expect.stringMatching(/^\{"trigger":"schedule","service_id":"LH-40[02]","status":"success"\}$/),
      '{"paused":true,"note":"fleet migration"}',
      '{"paused":true,"note":"fleet migration"}',
      '{"paused":false,"note":"migration done"}',
      '{"paused":false,"note":"migration done"}',
      '{"paused":false,"runs":["started"]}',
    ]);
  });
});
