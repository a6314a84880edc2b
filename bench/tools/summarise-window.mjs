// Top self-time functions of a .cpuprofile within the window where the jobs phase ran: from the first sample whose
// stack passes through the function `from` to the last through the function `to`. Usage: node summarise-window.mjs file from to [top]
import { readFileSync } from 'node:fs';
const [file, from, to, topArg] = process.argv.slice(2);
const prof = JSON.parse(readFileSync(file, 'utf8'));
const top = Number(topArg ?? 25);
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
// `part`: a function name (a frame of that name anywhere in the stack).
const passes = (id, part) => {
  for (let n = id; n !== undefined; n = parent.get(n)) if (byId.get(n).callFrame.functionName === part) return true;
  return false;
};
let t = prof.startTime;
const times = prof.timeDeltas.map((d) => (t += d));
let first = -1,
  last = -1;
prof.samples.forEach((id, i) => {
  if (first < 0 && passes(id, from)) first = i;
  if (passes(id, to)) last = i;
});
const self = new Map();
let total = 0;
for (let i = Math.max(first, 0); i <= last; i++) {
  const d = prof.timeDeltas[i + 1] ?? 0;
  self.set(prof.samples[i], (self.get(prof.samples[i]) ?? 0) + d);
  total += d;
}
const fns = new Map();
for (const [id, ms] of self) {
  const { functionName, url, lineNumber } = byId.get(id).callFrame;
  const short = url
    .replace(/^.*node_modules\//, 'nm:')
    .replace(/^file:\/\/.*?\/(dist|src)\//, '$1/')
    .replace(/^.*\/dist\//, 'dist/');
  const key = `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
  fns.set(key, (fns.get(key) ?? 0) + ms);
}
console.log(`window ${((times[last] - times[Math.max(first, 0)]) / 1e6).toFixed(1)} s (samples ${first}..${last})`);
const busy = total - (fns.get('(idle) :0') ?? 0);
console.log(`busy ${(busy / 1e6).toFixed(1)} s; top self time, % of busy:`);
for (const [k, ms] of [...fns]
  .filter(([k]) => k !== '(idle) :0')
  .sort((a, b) => b[1] - a[1])
  .slice(0, top))
  console.log(`${((ms / busy) * 100).toFixed(1).padStart(5)}%  ${k}`);
