import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(__dirname, '../..');

describe('installing the handler kit as docs/handlers.md says', () => {
  it('packs it with its built dist/ and installs the tarball into an empty project, offline', () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'mos-handler-kit-'));
    try {
      const packed = path.join(tmp, 'packed');
      mkdirSync(packed);
      execFileSync('npm', ['pack', './handler-kit', '--pack-destination', packed, '--silent'], {
        cwd: root,
        encoding: 'utf8',
        stdio: 'pipe',
      });
      const [tarball] = readdirSync(packed);
      expect(tarball).toBe('model-orchestration-handler-kit-0.1.0.tgz');
      const project = path.join(tmp, 'my-handler');
      mkdirSync(project);
      writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'my-handler', version: '1.0.0', private: true }));
      execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(packed, tarball)], {
        cwd: project,
        encoding: 'utf8',
      });
      const exported = execFileSync(
        process.execPath,
        ['-e', "console.log(Object.keys(require('@model-orchestration/handler-kit')).sort().join(','))"],
        { cwd: project, encoding: 'utf8' },
      );
      expect(exported.trim().split(',')).toEqual(expect.arrayContaining(['httpHandler', 'lambdaHandler']));
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
