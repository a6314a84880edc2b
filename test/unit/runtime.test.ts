import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const root = path.resolve(__dirname, '../..');
const read = (file: string): string => readFileSync(path.join(root, file), 'utf8');
const major = (version: string): number => Number(/(\d+)/.exec(version)?.[1]);
const pinned = read('.node-version').trim();

describe('the Node runtime', () => {
  it('is the pinned LTS everywhere it is named: .node-version, engines, the Dockerfile and @types/node', () => {
    const pkg = JSON.parse(read('package.json')) as { engines: { node: string }; devDependencies: Record<string, string> };
    const images = [...read('Dockerfile').matchAll(/^FROM node:(\S+)/gm)].map((m) => m[1]);
    expect(major(pkg.engines.node)).toBe(major(pinned));
    expect(major(pkg.devDependencies['@types/node'])).toBe(major(pinned));
    expect(images.length).toBeGreaterThan(0);
    expect(images.map(major)).toEqual(images.map(() => major(pinned)));
  });

  it('runs the tests on it (bash scripts/setup-node.sh prints the folder to put first on PATH)', () => {
    expect(`v${major(process.version)}`).toBe(`v${major(pinned)}`);
  });

  // The AWS SDK warns on every start on a Node it is dropping; the warning is emitted by the first call's middleware.
  it('is one the AWS SDK supports: a call prints no NodeVersionSupportWarning', async () => {
    const script = `
      const { LambdaClient, ListFunctionsCommand } = require('@aws-sdk/client-lambda');
      const client = new LambdaClient({ region: 'eu-west-1', endpoint: 'http://127.0.0.1:9', maxAttempts: 1,
        credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
      client.send(new ListFunctionsCommand({})).then(() => console.log('answered'), () => console.log('refused'));`;
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['-e', script], { cwd: root });
    expect(stdout.trim()).toBe('refused');
    expect(stderr).not.toMatch(/NodeVersionSupportWarning|require node/i);
  });

  it('is one Redocly supports: the OpenAPI lint prints no deprecation warning', async () => {
    const cli = require.resolve('@redocly/cli/bin/cli.js', { paths: [root] });
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [cli, '--version'], { cwd: root, env });
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    expect(stderr + stdout).not.toMatch(/Deprecation warning|end-of-life/i);
  });
});
