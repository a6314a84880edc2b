// Holds N idle Postgres connections until stopped (SIGTERM/SIGINT): the "other clients" of a busy database
// server, for bench/ci-under-load.sh. PGURL names the server (default: the local one).
import pg from 'pg';

const count = Number(process.argv[2] ?? 30);
const url = process.env.PGURL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const clients = [];
for (let i = 0; i < count; i++) {
  const client = new pg.Client({ connectionString: url, application_name: 'idle-neighbour' });
  await client.connect();
  clients.push(client);
}
console.log(`[hold-connections] holding ${count} idle connections to ${new URL(url).host}`);
const stop = async () => {
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
  process.exit(0);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
setInterval(() => undefined, 1 << 30);
