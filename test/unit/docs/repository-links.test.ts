import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const root = path.resolve(__dirname, '../../..');
// Not the repository's own: installed, built, or the dev state of `npm start`.
const SKIPPED = new Set(['node_modules', '.git', 'dist', '.tools', '.data', 'coverage']);
const TEXT = /\.(md|ts|mts|js|mjs|json|ya?ml|sh)$|^Dockerfile$/;

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? files(full) : TEXT.test(entry.name) ? [full] : [];
  });
}

const relative = (file: string) => path.relative(root, file);

/** Relative link targets of a Markdown file, without their #fragment. */
function relativeLinks(markdown: string): string[] {
  return [...markdown.matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => target.split('#')[0])
    .filter((target) => target && !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('the repository stands alone', () => {
  it('has no Markdown link that leaves the repository or points at a missing file', () => {
    const broken = files(root)
      .filter((file) => file.endsWith('.md'))
      .flatMap((file) =>
        relativeLinks(readFileSync(file, 'utf8')).flatMap((target) => {
          const resolved = path.resolve(path.dirname(file), decodeURI(target));
          const inside = !path.relative(root, resolved).startsWith('..');
          return inside && existsSync(resolved) ? [] : [`${relative(file)} → ${target}`];
        }),
      );
    expect(broken).toEqual([]);
  });

  it('names no folder beside the checkout (the shared folder of the machine it was built on)', () => {
    const outside = ['..', 'shared'].join('/');
    const naming = files(root).filter((file) => readFileSync(file, 'utf8').includes(outside));
    expect(naming.map(relative)).toEqual([]);
  });
});
