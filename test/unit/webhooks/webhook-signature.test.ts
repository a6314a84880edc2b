import { createHmac } from 'node:crypto';
import { newSecret, sign, signatureHeader, verify } from '../../../src/webhooks/signature';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0TRCqQ7vRRk=';
const ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TS = 1614265330;
const BODY = '{"test": 2432232314}';

describe('Standard Webhooks signatures', () => {
  it('are v1, then the base64 HMAC-SHA256 of id.timestamp.body keyed with the decoded secret', () => {
    const key = Buffer.from(SECRET.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${ID}.${TS}.${BODY}`).digest('base64');
    expect(sign(SECRET, ID, TS, BODY)).toBe(`v1,${expected}`);
  });

  it('verify within the tolerance, and refuse a changed body, another secret or an old timestamp', () => {
    const headers = { id: ID, timestamp: String(TS), signature: sign(SECRET, ID, TS, BODY) };
    const at = TS * 1000;
    expect(verify(SECRET, headers, BODY, 300, at + 60_000)).toBe(true);
    expect(verify(SECRET, headers, `${BODY} `, 300, at)).toBe(false);
    expect(verify(newSecret(), headers, BODY, 300, at)).toBe(false);
    expect(verify(SECRET, headers, BODY, 300, at + 301_000)).toBe(false);
  });

  it('carry one space-separated signature per secret in force, each verifiable alone', () => {
    const next = newSecret();
    const header = signatureHeader([next, SECRET], ID, TS, BODY);
    expect(header.split(' ')).toHaveLength(2);
    for (const secret of [next, SECRET])
      expect(verify(secret, { id: ID, timestamp: String(TS), signature: header }, BODY, 300, TS * 1000)).toBe(true);
  });

  it('uses new secrets of 32 random bytes in the whsec_ form', () => {
    const secret = newSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });
});
