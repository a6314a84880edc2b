import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

/**
 * A test that sleeps and then asserts passes whenever the effect is merely slower than the sleep: "nothing happened"
 * after a sleep proves nothing. Tests wait for the event that would have caused the effect instead (a workflow's
 * record, an outbox row, a later marker), then assert. A sleep whose elapsed time is itself the rule under test (a
 * refetch interval, a staleness limit) says so with a `// clock:` comment on its line.
 */
const SLEEP = /^\s*await\s+(?:sleep|pause|delay)\(|^\s*await\s+new Promise\(\(?\w*\)?\s*=>\s*setTimeout\(/;
const EVENT_WAIT = /eventually\(|waitFor\(/;
/** Statements looked at after a sleep, until one waits for an event or the sleep's block ends. */
const WINDOW = 5;

export interface SleepThenAssert {
  line: number;
  sleep: string;
  assertion: string;
}

export function sleepsThenAssertions(source: string): SleepThenAssert[] {
  const lines = source.split('\n');
  const found: SleepThenAssert[] = [];
  const indent = (s: string) => s.length - s.trimStart().length;
  lines.forEach((sleep, i) => {
    if (!SLEEP.test(sleep) || sleep.includes('// clock:')) return;
    let seen = 0;
    for (let j = i + 1; j < lines.length && seen < WINDOW; j++) {
      const line = lines[j];
      const code = line.trim();
      if (code === '' || code.startsWith('//')) continue;
      if (indent(line) < indent(sleep) || EVENT_WAIT.test(code)) break;
      if (code.includes('expect(')) {
        found.push({ line: i + 1, sleep: sleep.trim(), assertion: code });
        break;
      }
      seen++;
    }
  });
  return found;
}

// The samples below spell their sleeps in pieces, so a plain grep of test/ for a sleep before an assertion stays clean.
const timer = (ms: number) => ['await new Promise((r) => ', `setTimeout(r, ${ms}));`].join('');
const sleepFor = (ms: number) => ['await ', `sleep(${ms});`].join('');

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return name === 'histories' ? [] : testFiles(full);
    return /\.(ts|mts|js|mjs)$/.test(name) ? [full] : [];
  });
}

describe('tests wait for events, not time', () => {
  it('has no sleep followed by an assertion anywhere in test/', () => {
    const root = path.resolve(__dirname, '..');
    const offenders = testFiles(root).flatMap((file) =>
      sleepsThenAssertions(readFileSync(file, 'utf8')).map((f) => `${path.relative(root, file)}:${f.line}: ${f.sleep} … ${f.assertion}`),
    );
    expect(offenders).toEqual([]);
  });

  it('flags the shapes this replaced: a fixed sleep, then "still once" or "nothing else arrived"', () => {
    const exactlyOnce = [
      "    expect(await h.gateway.launch({ ...staleRow, status: 'pending' })).toBe('existing');",
      `    ${timer(1500)}`,
      '    expect(dispatches.get(jobId)).toBe(1);',
    ].join('\n');
    const webhook = [
      "    await eventually(async () => receiver.requests('rollback').length > 0, 20000, 'the later change');",
      `    ${sleepFor(500)}`,
      '    // only the kept change',
      "    const keys = receiver.requests('rollback').map((r) => r.json.data.assignment_key);",
      "    expect(keys).toEqual(['kept']);",
    ].join('\n');
    expect(sleepsThenAssertions(exactlyOnce)).toEqual([
      { line: 2, sleep: timer(1500), assertion: 'expect(dispatches.get(jobId)).toBe(1);' },
    ]);
    expect(sleepsThenAssertions(webhook).map((f) => f.line)).toEqual([2]);
  });

  it('leaves alone a poll loop, a sleep inside a stand-in, a sleep followed by an event wait, and a declared clock rule', () => {
    const allowed = [
      `for (let i = 0; i < 100 && calls.length === 0; i++) ${timer(50)}`,
      'const finishJob = async () => {',
      `  ${timer(500)}`,
      '  return { status: "success" };',
      '};',
      'expect(await finishJob()).toEqual({ status: "success" });',
      sleepFor(3000),
      'await eventually(async () => done, 1000, "done");',
      'expect(done).toBe(true);',
      `${sleepFor(1100)} // clock: the failed fetch is not repeated within the refetch interval`,
      'expect((await call(token)).status).toBe(200);',
    ].join('\n');
    expect(sleepsThenAssertions(allowed)).toEqual([]);
  });
});
