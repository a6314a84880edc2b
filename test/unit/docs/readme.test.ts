import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { API_DESCRIPTION } from '../../../src/openapi/descriptions';

const root = path.resolve(__dirname, '../../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
/** The text of one `## ` section of the README, up to the next. */
const section = (heading: string) => {
  const start = readme.indexOf(`## ${heading}`);
  return readme.slice(start, readme.indexOf('\n## ', start + 1));
};

describe('what the README tells a new user before they trip on it', () => {
  it('names Go and the measured build time of Temporal at the top of "Two commands"', () => {
    const top = section('Two commands').split('\n').slice(0, 8).join('\n');
    expect(top).toMatch(/\[Go\]\(https:\/\/go\.dev\/dl\)/);
    expect(top).toMatch(/\d+ min \d+ s for the CLI/);
  });

  it('says that EBADENGINE warnings are expected where it describes the pinned Node', () => {
    const pinned = section('Two commands');
    expect(pinned.indexOf('EBADENGINE')).toBeGreaterThan(pinned.indexOf('.node-version'));
    expect(pinned.slice(0, pinned.indexOf('| | command |'))).toMatch(/EBADENGINE[^.]*expected/);
  });

  it('says that npm run token needs the MOS_DATA_DIR of npm start, where it introduces the setting and before the quick start mints tokens', () => {
    const tokens = readme.slice(readme.indexOf('### Dev data and tokens'), readme.indexOf('## Quick start'));
    expect(tokens).toMatch(/`MOS_DATA_DIR`[^]*same `MOS_DATA_DIR`[^]*token signed with an unknown key/);
    const quickStart = section('Quick start: the whole journey with curl');
    expect(quickStart.slice(0, quickStart.indexOf('```bash'))).toContain('same `MOS_DATA_DIR`');
  });

  it('names the Swagger UI buttons as /docs shows them: try-out is on, so there is no "Try it out" to press', () => {
    const init = readFileSync(path.join(root, 'src/routes/docs.routes.ts'), 'utf8');
    expect(init).toContain('tryItOutEnabled: true');
    for (const text of [readme, API_DESCRIPTION]) {
      expect(text).not.toContain('Try it out');
      expect(text).toContain('*Execute*');
    }
  });
});

describe('scripts/setup-temporal.sh', () => {
  it('says every SETUP_PROGRESS_SECONDS that a Go build goes on, and how long it took', () => {
    const tmp = mkdtempSync(path.join(os.tmpdir(), 'mos-setup-temporal-'));
    try {
      mkdirSync(path.join(tmp, 'scripts'));
      mkdirSync(path.join(tmp, 'fake-go'));
      copyFileSync(path.join(root, 'scripts/setup-temporal.sh'), path.join(tmp, 'scripts/setup-temporal.sh'));
      // A `go` that builds for 2.5 s, silent as the real one is while it compiles.
      const go = path.join(tmp, 'fake-go/go');
      writeFileSync(go, '#!/usr/bin/env bash\nsleep 2.5; printf "#!/bin/sh\\n" > "$GOBIN/temporal"; chmod +x "$GOBIN/temporal"\n');
      chmodSync(go, 0o755);
      const stderr = execFileSync('bash', ['-c', 'bash scripts/setup-temporal.sh 2>&1 >/dev/null'], {
        cwd: tmp,
        encoding: 'utf8',
        env: {
          ...process.env,
          PATH: `${path.dirname(go)}:${process.env.PATH}`,
          XDG_CACHE_HOME: path.join(tmp, 'cache'),
          SETUP_PROGRESS_SECONDS: '1',
        },
      });
      expect(stderr).toMatch(/still building temporal: 0 min \d s so far/);
      expect(stderr).toMatch(/temporal built in 0 min \d s/);
      expect(existsSync(path.join(tmp, '.tools/bin/temporal'))).toBe(true);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
