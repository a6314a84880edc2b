// Samples pg_stat_activity while a command runs and prints the peak number of connections, in all and by
// database kind and application_name: `node bench/tools/pg-connections.mjs -- npm test`.
// PGURL names the server to watch (default: the local one); the sampler's own connection is left out.
import { spawn } from 'node:child_process';
import pg from 'pg';

const dashes = process.argv.indexOf('--');
const command = dashes >= 0 ? process.argv.slice(dashes + 1) : [];
if (!command.length) {
  console.error('usage: node bench/tools/pg-connections.mjs -- <command> [args...]');
  process.exit(2);
}
const client = new pg.Client({ connectionString: process.env.PGURL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
await client.connect();
const kind = (db) => (db ?? '(none)').replace(/_\d+_\d+/, '_*').replace(/^mos_test_[0-9a-f]{6,}.*/, 'mos_test_*');
let peak = 0;
let peakAt = '';
const peaks = new Map();
const sample = async () => {
  const { rows } = await client.query(
    `select datname, application_name, count(*)::int as n from pg_stat_activity
      where backend_type = 'client backend' and pid <> pg_backend_pid() group by 1, 2`,
  );
  const total = rows.reduce((sum, r) => sum + r.n, 0);
  if (total > peak) {
    peak = total;
    peakAt = rows.map((r) => `${kind(r.datname)}/${r.application_name || '-'}=${r.n}`).join(' ');
  }
  for (const r of rows) {
    const key = `${kind(r.datname)} ${r.application_name || '-'}`;
    peaks.set(key, Math.max(peaks.get(key) ?? 0, r.n));
  }
};
const timer = setInterval(() => void sample().catch(() => undefined), 250);
const child = spawn(command[0], command.slice(1), { stdio: 'inherit' });
const code = await new Promise((resolve) => child.on('exit', (c, signal) => resolve(c ?? (signal ? 1 : 0))));
clearInterval(timer);
await client.end();
console.log(`\n[pg-connections] peak ${peak} client connections (besides the sampler): ${peakAt}`);
for (const [key, n] of [...peaks].sort((a, b) => b[1] - a[1])) console.log(`[pg-connections]   ${String(n).padStart(3)}  ${key}`);
process.exit(code);
