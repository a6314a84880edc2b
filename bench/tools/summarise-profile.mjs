// Summarises a .cpuprofile: top self-time functions and self time by package. Usage: node summarise-profile.mjs file [top]
import { readFileSync } from 'node:fs';
const [file, topArg] = process.argv.slice(2);
const prof = JSON.parse(readFileSync(file, 'utf8'));
const top = Number(topArg ?? 25);
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const self = new Map();
const total = prof.timeDeltas.reduce((a, b) => a + b, 0);
prof.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0)));
const fns = new Map(),
  pkgs = new Map();
for (const [id, t] of self) {
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const short = url.replace(/^.*node_modules\//, 'nm:').replace(/^file:\/\/.*?\/(dist|src)\//, '$1/');
  const key = `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + t);
  const pkg = url.includes('node_modules/')
    ? url.replace(/^.*node_modules\/((@[^/]+\/)?[^/]+).*$/, '$1')
    : url.startsWith('node:')
      ? 'node:' + url.slice(5).split('/')[0]
      : url
        ? url.includes('/dist/')
          ? 'service (dist)'
          : url
        : functionName;
  pkgs.set(pkg, (pkgs.get(pkg) ?? 0) + t);
}
const pct = (t) => ((t / total) * 100).toFixed(1).padStart(5) + '%';
console.log(`total ${(total / 1e6).toFixed(1)} s sampled`);
console.log('-- self time by package');
for (const [k, t] of [...pkgs].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(pct(t), k);
console.log('-- top self-time functions');
for (const [k, t] of [...fns].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(pct(t), k);
