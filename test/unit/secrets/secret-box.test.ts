import { randomBytes } from 'node:crypto';
import { inspect } from 'node:util';
import { createSecretBox, sealedKeyId, SealedSecretError } from '../../../src/secrets/secret-box';
import { parseSecretKeys } from '../../../src/secrets/secret-keys';
import { ConfigError } from '../../../src/env-values';

const material = () => randomBytes(32).toString('base64');
const [k1, k2] = [`k1=${material()}`, `k2=${material()}`];
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

describe('the secret box (envelope encryption under SECRET_KEYS)', () => {
  it('opens what it sealed, and the sealed form holds neither the secret nor its base64 part', () => {
    const box = createSecretBox(parseSecretKeys(k1));
    const sealed = box.seal(SECRET);
    expect(box.open(sealed)).toBe(SECRET);
    expect(sealed).toMatch(/^sealed\.v1\.k1\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain(SECRET.slice('whsec_'.length, 16));
  });

  it('seals the same secret differently each time (a data key and an iv per value)', () => {
    const box = createSecretBox(parseSecretKeys(k1));
    expect(box.seal(SECRET)).not.toBe(box.seal(SECRET));
  });

  it('seals under the first key and still opens what older keys sealed', () => {
    const old = createSecretBox(parseSecretKeys(k1)).seal(SECRET);
    const rotated = createSecretBox(parseSecretKeys(`${k2},${k1}`));
    expect(sealedKeyId(rotated.seal(SECRET))).toBe('k2');
    expect(rotated.open(old)).toBe(SECRET);
  });

  it('reseals under the current key by re-wrapping the data key only, so the old key is no longer needed', () => {
    const old = createSecretBox(parseSecretKeys(k1)).seal(SECRET);
    const resealed = createSecretBox(parseSecretKeys(`${k2},${k1}`)).reseal(old);
    expect(sealedKeyId(resealed)).toBe('k2');
    expect(resealed.split('.')[4]).toBe(old.split('.')[4]);
    expect(createSecretBox(parseSecretKeys(k2)).open(resealed)).toBe(SECRET);
    expect(createSecretBox(parseSecretKeys(k2)).reseal(resealed)).toBe(resealed);
  });

  it('refuses a value sealed under a key it does not hold, naming the key id', () => {
    const sealed = createSecretBox(parseSecretKeys(k1)).seal(SECRET);
    expect(() => createSecretBox(parseSecretKeys(k2)).open(sealed)).toThrow(/sealed under key "k1", which SECRET_KEYS does not hold/);
  });

  it('refuses an altered value, a key id swapped in front, another key of the same id, and plain text', () => {
    const box = createSecretBox(parseSecretKeys(`${k1},${k2}`));
    const sealed = box.seal(SECRET);
    const [prefix, version, , wrapped, payload] = sealed.split('.');
    const flip = (part: string) => part.slice(0, 20) + (part[20] === 'A' ? 'B' : 'A') + part.slice(21);
    for (const bad of [
      [prefix, version, 'k1', wrapped, flip(payload)].join('.'),
      [prefix, version, 'k1', flip(wrapped), payload].join('.'),
      [prefix, version, 'k2', wrapped, payload].join('.'),
      SECRET,
    ]) {
      expect(() => box.open(bad)).toThrow(SealedSecretError);
    }
    expect(() => createSecretBox(parseSecretKeys(`k1=${material()}`)).open(sealed)).toThrow(/integrity check/);
  });

  it('without keys, refuses to seal or open, naming SECRET_KEYS', () => {
    const box = createSecretBox([]);
    expect(() => box.seal(SECRET)).toThrow(/SECRET_KEYS is not set/);
    expect(() => box.open(createSecretBox(parseSecretKeys(k1)).seal(SECRET))).toThrow(SealedSecretError);
  });
});

describe('SECRET_KEYS', () => {
  it('keeps the key bytes out of logs and dumps', () => {
    const raw = material();
    const [key] = parseSecretKeys(`main=${raw}`);
    expect(key.id).toBe('main');
    expect(JSON.stringify(key)).not.toContain(raw);
    expect(inspect(key, { depth: 5 })).not.toContain(raw);
  });

  it.each([
    ['no id', `=${material()}`, /entry 1 must be <id>=<base64 key>/],
    ['a bad id', `a b=${material()}`, /entry 1 must be <id>=<base64 key>/],
    ['a short key', `k=${randomBytes(16).toString('base64')}`, /key "k" must be 32 bytes in base64/],
    ['not base64', `k=${'!'.repeat(44)}`, /key "k" must be 32 bytes in base64/],
    ['an id twice', `k=${material()},k=${material()}`, /lists the key id "k" twice/],
  ])('refuses %s, naming the entry and not the key', (_case, raw, message) => {
    expect(() => parseSecretKeys(raw)).toThrow(ConfigError);
    expect(() => parseSecretKeys(raw)).toThrow(message);
  });
});
