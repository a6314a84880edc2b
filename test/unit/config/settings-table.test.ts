import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import type { Env } from '../../../src/env-values';

/** The rows of the README's configuration table. */
function configurationTable(): string {
  const readme = readFileSync(path.resolve(__dirname, '../../../README.md'), 'utf8');
  const start = readme.indexOf('## Configuration');
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  return section
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .join('\n');
}

describe('the README configuration table', () => {
  it('lists every variable the configuration reads', () => {
    // An environment that records what is asked of it: the settings as loadConfig reads them, not as a list kept by hand.
    const read = new Set<string>();
    const env = new Proxy<Env>(
      {},
      {
        get: (_target, name) => {
          if (typeof name === 'string') read.add(name);
          return undefined;
        },
      },
    );
    loadConfig(env);
    const table = configurationTable();
    expect(read.size).toBeGreaterThan(40);
    expect([...read].filter((name) => !table.includes(`\`${name}\``))).toEqual([]);
  });
});
