import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { ensurePrivateDir } from '../paths';

/**
 * The dev key-encryption key, as a SECRET_KEYS value, kept beside the dev signing key (owner-only folder and file)
 * so webhook secrets sealed by one `npm start` open in the next. Never used when SECRET_KEYS is set.
 */
export function loadDevSecretKeys(dataDir: string): string {
  const file = path.join(dataDir, 'dev-secrets', 'secret-keys');
  if (!existsSync(file)) {
    ensurePrivateDir(path.dirname(file));
    writeFileSync(file, `dev-${Date.now()}=${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  }
  return readFileSync(file, 'utf8').trim();
}
