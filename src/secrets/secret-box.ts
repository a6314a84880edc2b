import { createCipheriv, createDecipheriv, randomBytes, type KeyObject } from 'node:crypto';

/** A key-encryption key from SECRET_KEYS: its id is stored beside everything sealed under it. */
export interface SecretKey {
  id: string;
  /** A KeyObject, so the bytes never show in a log line, an inspect or a JSON dump of the config. */
  key: KeyObject;
}

/**
 * Secrets the service must read back (webhook signing secrets, later the `http` handlers' ones) are stored sealed:
 * envelope encryption with AES-256-GCM. Each value gets its own random data key; the data key is encrypted
 * ("wrapped") under the current key-encryption key, whose id is written in front:
 *
 *   sealed.v1.<key id>.<wrapped data key>.<ciphertext>     (base64url parts: iv | ciphertext | tag)
 *
 * Rotating the key-encryption key re-wraps the data keys only (`reseal`); the ciphertexts stay as they are.
 */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  /** The same secret with its data key wrapped under the current key; unchanged when it already is. */
  reseal(sealed: string): string;
  /** The id of the key new values are sealed under (the first of SECRET_KEYS). */
  readonly currentKeyId: string;
}

export const SEALED_PREFIX = 'sealed.v1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** A sealed value cannot be opened: its key is not configured, or it fails its integrity check. */
export class SealedSecretError extends Error {}

function encrypt(key: KeyObject | Buffer, plain: Buffer, aad: string): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv).setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plain), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString('base64url');
}

function decrypt(key: KeyObject | Buffer, sealed: string, aad: string): Buffer {
  const raw = Buffer.from(sealed, 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES) throw new SealedSecretError('a sealed secret is truncated');
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES)).setAAD(Buffer.from(aad));
  decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(raw.subarray(IV_BYTES, raw.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SealedSecretError('a sealed secret failed its integrity check (altered, or sealed under another key of that id)');
  }
}

function parts(sealed: string): { keyId: string; wrapped: string; payload: string } {
  const [keyId, wrapped, payload, ...rest] = sealed.startsWith(SEALED_PREFIX) ? sealed.slice(SEALED_PREFIX.length).split('.') : [];
  if (!keyId || !wrapped || !payload || rest.length) throw new SealedSecretError('not a sealed secret');
  return { keyId, wrapped, payload };
}

/** The key id a sealed value was sealed under. */
export function sealedKeyId(sealed: string): string {
  return parts(sealed).keyId;
}

/**
 * A box over the configured keys, newest first. Without keys it is built all the same and refuses every use,
 * so processes that never touch a secret (benchmarks, the migrations of an empty table) need none.
 */
export function createSecretBox(keys: SecretKey[]): SecretBox {
  const byId = new Map(keys.map((k) => [k.id, k.key]));
  const current = keys[0];
  const currentKey = (): SecretKey => {
    if (!current) throw new SealedSecretError('SECRET_KEYS is not set: secrets cannot be sealed or opened');
    return current;
  };
  const dataKeyOf = (sealed: string) => {
    const { keyId, wrapped, payload } = parts(sealed);
    const kek = byId.get(keyId);
    if (!kek) throw new SealedSecretError(`a secret is sealed under key "${keyId}", which SECRET_KEYS does not hold`);
    return { dataKey: decrypt(kek, wrapped, `${SEALED_PREFIX}${keyId}`), keyId, payload };
  };
  const wrap = (dataKey: Buffer, payload: string) => {
    const { id, key } = currentKey();
    return `${SEALED_PREFIX}${id}.${encrypt(key, dataKey, `${SEALED_PREFIX}${id}`)}.${payload}`;
  };

  return {
    get currentKeyId() {
      return currentKey().id;
    },
    seal(plain) {
      currentKey();
      const dataKey = randomBytes(32);
      return wrap(dataKey, encrypt(dataKey, Buffer.from(plain, 'utf8'), SEALED_PREFIX));
    },
    open(sealed) {
      const { dataKey, payload } = dataKeyOf(sealed);
      return decrypt(dataKey, payload, SEALED_PREFIX).toString('utf8');
    },
    reseal(sealed) {
      const { dataKey, keyId, payload } = dataKeyOf(sealed);
      return keyId === currentKey().id ? sealed : wrap(dataKey, payload);
    },
  };
}
