import { createSecretKey } from 'node:crypto';
import { ConfigError } from '../env-values';
import type { SecretKey } from './secret-box';

const ID = /^[A-Za-z0-9_-]{1,40}$/;

/**
 * SECRET_KEYS: `<id>=<32 bytes in base64>` entries, comma-separated, newest first. New secrets are sealed under the
 * first; the others only open what was sealed under them until `npm run secrets:reseal` has moved it to the first.
 * Messages name the variable and the entry's id, never key material.
 */
export function parseSecretKeys(raw: string | undefined): SecretKey[] {
  const keys: SecretKey[] = [];
  for (const [index, entry] of (raw ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
    .entries()) {
    const at = entry.indexOf('=');
    const id = at > 0 ? entry.slice(0, at) : '';
    const encoded = entry.slice(at + 1);
    const material = Buffer.from(encoded, 'base64');
    if (!ID.test(id))
      throw new ConfigError(`SECRET_KEYS entry ${index + 1} must be <id>=<base64 key> with an id of letters, digits, _ or -`);
    if (material.length !== 32 || material.toString('base64') !== encoded) {
      throw new ConfigError(`SECRET_KEYS key "${id}" must be 32 bytes in base64 (openssl rand -base64 32)`);
    }
    if (keys.some((k) => k.id === id)) throw new ConfigError(`SECRET_KEYS lists the key id "${id}" twice`);
    keys.push({ id, key: createSecretKey(material) });
  }
  return keys;
}
