import { CPU_PARTS } from '../cpu';
import { type Figures, fmt } from './figures';
import { ONLY, ROUNDS, TEMPORAL } from './options';
import type { Read } from './reads';

/** The first line: node, date, which Temporal server, how many rounds, which sides. */
export function printHeader() {
  console.log(
    `Model Orchestration Service benchmark (node ${process.version}, ${new Date().toISOString()}, Temporal ${TEMPORAL === 'server' ? 'production-shaped server (Postgres, 4 shards)' : 'dev server'}, ${ROUNDS} interleaved rounds${ONLY === 'all' ? '' : `, ${ONLY} only`})\n`,
  );
}

/**
 * Each target of the job-path benchmark: the two sides' medians (each round's figures in brackets), their ratio, met
 * or not. The targets are the job path's (end to end ≥ 0.85 of the bare client and worker, reads ≥ 0.9 of the bare
 * handler, 10 subscriptions ≤ 1.2 × none); admission has none, it is reported with its p99.
 */
export function printTargets({ m, all }: Figures, reads: Read[]) {
  console.log("\nmedians of the rounds (each round's figures after the slash-separated lists)");
  const rows: [string, string, string, number, string, boolean][] = [];
  const row = (target: string, s: string, b: string, ratio: number, goal: string, met: boolean) =>
    rows.push([target, s, b, ratio, goal, met]);
  const inits = m('service.inits'),
    starts = m('bare.starts');
  row(
    'job starts: accepted inits/s vs bare starts/s',
    `${fmt(inits)} (p50 ${fmt(m('service.initP50'))} ms, p99 ${fmt(m('service.initP99'))} ms) [${all('service.inits')}]`,
    `${fmt(starts)} (p50 ${fmt(m('bare.startP50'))} ms, p99 ${fmt(m('bare.startP99'))} ms) [${all('bare.starts')}]`,
    inits / starts,
    'none',
    true,
  );
  const e2e = m('service.e2e'),
    bareE2e = m('bare.e2e');
  row(
    'end to end: echo jobs/s vs bare workflow/s',
    `${fmt(e2e)} [${all('service.e2e')}]`,
    `${fmt(bareE2e)} [${all('bare.e2e')}]`,
    e2e / bareE2e,
    '≥ 0.85',
    e2e / bareE2e >= 0.85,
  );
  for (const [what] of reads) {
    const s = m(`service.read.${what}`),
      b = m(`bare.read.${what}`);
    row(
      `reads: GET ${what} req/s vs bare handler`,
      `${fmt(s)} [${all(`service.read.${what}`)}]`,
      `${fmt(b)} [${all(`bare.read.${what}`)}]`,
      s / b,
      '≥ 0.9',
      s / b >= 0.9,
    );
  }
  const c0 = m('service.complete0'),
    upd = m('bare.update'),
    c10 = m('service.complete10');
  row(
    'completion p50 ms, no subscriptions vs bare update',
    `${fmt(c0)} [${all('service.complete0')}]`,
    `${fmt(upd)} [${all('bare.update')}]`,
    c0 / upd,
    '≤ 2',
    c0 / upd <= 2,
  );
  row(
    'completion p50 ms, 10 subscriptions vs none',
    `${fmt(c10)} [${all('service.complete10')}]`,
    `${fmt(c0)}`,
    c10 / c0,
    '≤ 1.2',
    c10 / c0 <= 1.2,
  );
  for (const [target, s, b, ratio, goal, met] of rows) {
    console.log(
      `${target}\n  service ${s}\n  bare    ${b}\n  ratio   ${Number.isFinite(ratio) ? ratio.toFixed(2) : '-'} ${goal === 'none' ? '(no target)' : `(target ${goal}): ${Number.isFinite(ratio) ? (met ? 'met' : 'NOT met') : 'not measured'}`}`,
    );
  }
}

/** The figures without a target: CPU ms and database statements per job, the back-to-back completion. */
export function printCosts({ m, all }: Figures) {
  // What one job costs each process (CPU ms, init to success): where the two sides part on a shared machine.
  const cpuOf = (side: string) => {
    const [node, temporal, postgres] = CPU_PARTS.map((k) => m(`${side}.cpu.${k}`));
    return `node ${fmt(node)} + Temporal ${fmt(temporal)} + Postgres ${fmt(postgres)} = ${fmt(node + temporal + postgres)}`;
  };
  console.log(`CPU ms per job, init or start to success (medians; no target)\n  service ${cpuOf('service')}\n  bare    ${cpuOf('bare')}`);
  console.log(
    `database statements per echo job (init, claim, dispatch, outcome; no target)\n  service ${all('service.statements', (n) => n.toFixed(1))}`,
  );
  const c0 = m('service.complete0'),
    b2b = m('service.complete10b2b');
  console.log(
    `completion p50 ms, 10 subscriptions back to back (each while the last one's 10 cascade jobs still run; no target)\n  service ${fmt(b2b)} [${all('service.complete10b2b')}], ${fmt(b2b / c0)} × none`,
  );
}
