import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';

/** The repository root, found from this file whether it runs from src/ (ts) or dist/src/ (compiled). */
export function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

/** Where `npm start` keeps its state (Postgres data, Temporal SQLite file, dev signing key): MOS_DATA_DIR, else .data. */
export function dataDir(env: Record<string, string | undefined> = process.env): string {
  return env.MOS_DATA_DIR ? path.resolve(env.MOS_DATA_DIR) : path.join(projectRoot(), '.data');
}

/**
 * Makes `dir` (and any missing parent) readable by its owner alone, also when it exists already: the dev state
 * holds the signing key that mints admin tokens, and the database.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
}
