import { spawnSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';

/**
 * The Python handler kit's own checks, so `npm test` runs them: its pytest suite (which reads the contract cases the
 * TypeScript kit's tests read) and `mypy --strict`. Debian's python3 by path (scripts/setup-python.sh installs it
 * with pytest, mypy and scikit-learn): a python3 earlier on PATH may not see those packages.
 */
const PYTHON = process.env.MOS_PYTHON ?? '/usr/bin/python3';
const KIT = path.resolve(__dirname, '../../../handler-kit-python');

function run(args: string[]) {
  const result = spawnSync(PYTHON, args, {
    cwd: KIT,
    encoding: 'utf8',
    timeout: 100_000,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}${result.error ?? ''}` };
}

describe('the Python handler kit', () => {
  it('passes its unit and contract tests', () => {
    const { status, output } = run(['-m', 'pytest', '-q', '-p', 'no:cacheprovider']);
    expect({ status, output }).toEqual({ status: 0, output: expect.stringMatching(/\d+ passed/) });
  });

  it('is clean under mypy --strict', () => {
    const { status, output } = run(['-m', 'mypy', '--strict', '--cache-dir', path.join(os.tmpdir(), 'mos-handler-kit-mypy')]);
    expect({ status, output }).toEqual({ status: 0, output: expect.stringContaining('Success: no issues found') });
  });
});
