import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { bashBlocks, root, startDocRunner } from '../../helpers/doc-runner';

/**
 * docs/handlers.md's real model, run as written against a fresh dev runner: a scikit-learn classifier trained by a
 * Python `async` handler, served by a `sync` one, and a cascade into a second Python model.
 */
describe('the worked example of docs/handlers.md: a real model in Python', () => {
  let doc: Awaited<ReturnType<typeof startDocRunner>>;
  const state = mkdtempSync(path.join(os.tmpdir(), 'mos-iris-'));
  beforeAll(async () => {
    doc = await startDocRunner('python-iris-example');
  });
  afterAll(async () => {
    // The script's last block stops the handlers; after a failure part way, this does.
    const pid = path.join(state, 'pid');
    if (existsSync(pid)) {
      try {
        process.kill(Number(readFileSync(pid, 'utf8')));
      } catch {
        // already stopped
      }
    }
    rmSync(state, { recursive: true, force: true });
    await doc?.stop();
  });

  it('trains the classifier, activates the version, predicts a service and reviews the prediction', async () => {
    const blocks = bashBlocks('docs/handlers.md', 'A real model in Python');
    expect(blocks).toHaveLength(10);
    const script = ['set -euo pipefail', ...blocks].join('\n').replace(/^export (API|TOKEN)=.*$/gm, '');
    const out = await promisify(execFile)('bash', ['-c', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 90_000,
      env: { ...process.env, API: doc.runner.apiUrl, TOKEN: doc.runner.adminToken, IRIS_STATE: state },
    }).then(
      (r) => r.stdout,
      (err) => {
        const log = existsSync(path.join(state, 'log')) ? readFileSync(path.join(state, 'log'), 'utf8') : '';
        throw new Error(`the worked example failed (exit ${err.code}):\n${err.stdout}\n${err.stderr}\nhandlers' log:\n${log}`);
      },
    );
    // What a reader sees, and the numbers a note about it quotes.
    process.stdout.write(`\n${out}`);
    const lines = out.trimEnd().split('\n');
    const trained = JSON.parse(lines[0]);
    expect(trained).toMatchObject({ status: 'success', n_train: 105, n_test: 45 });
    expect(trained.accuracy).toBeGreaterThanOrEqual(0.9);
    expect(lines[1]).toBe('{"version":"1","status":"active"}');
    expect(lines[2]).toBe('{"target_model_id":"iris-review","input_source":"trigger_output"}');
    expect(lines[3]).toMatch(/^init to prediction: \d+ ms$/);
    const predicted = JSON.parse(lines[4]);
    expect(predicted).toMatchObject({ status: 'success', label: 'virginica' });
    expect(Object.keys(predicted.probabilities).sort()).toEqual(['setosa', 'versicolor', 'virginica']);
    expect(predicted.probabilities.virginica).toBeGreaterThan(0.5);
    expect(lines[5]).toMatch(/sepal_width.* 422$/);
    const reviewed = JSON.parse(lines[6]);
    expect(reviewed).toMatchObject({
      status: 'success',
      trigger: 'cascade',
      output: { label: 'virginica', confidence: predicted.probabilities.virginica },
    });
    expect(lines).toHaveLength(7);
  });
});
