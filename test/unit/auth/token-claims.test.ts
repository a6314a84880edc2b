import { SignJWT, CompactSign } from 'jose';
import { createTokenVerifier } from '../../../src/auth/verifier';
import { TestIdp, ISSUER, AUDIENCE } from '../../helpers/tokens';

const SKEW = 30;
const nowSeconds = () => Math.floor(Date.now() / 1000);

describe('token claims and headers', () => {
  let idp: TestIdp;
  let verify: ReturnType<typeof createTokenVerifier>;
  beforeAll(async () => {
    idp = await TestIdp.create();
    verify = createTokenVerifier({ keys: idp.jwks(), issuer: ISSUER, audience: AUDIENCE, clockSkewSeconds: SKEW });
  });

  const base = () => new SignJWT({ client_id: 'c' }).setIssuer(ISSUER).setAudience(AUDIENCE);
  const sign = (jwt: SignJWT, header: Record<string, unknown> = {}) =>
    jwt.setProtectedHeader({ alg: 'RS256', kid: idp.kid, ...header }).sign(idp.privateKey);

  it('refuses a token without exp', async () => {
    await expect(verify(await sign(base().setIssuedAt()))).rejects.toThrow('claim "exp"');
  });

  it('refuses a token issued a day in the future', async () => {
    await expect(
      verify(
        await sign(
          base()
            .setIssuedAt(nowSeconds() + 86400)
            .setExpirationTime(nowSeconds() + 90000),
        ),
      ),
    ).rejects.toThrow('"iat" is in the future');
  });

  it('accepts iat and nbf a little ahead, within the clock skew', async () => {
    const ahead = nowSeconds() + SKEW - 5;
    await expect(verify(await sign(base().setIssuedAt(ahead).setNotBefore(ahead).setExpirationTime('5m')))).resolves.toMatchObject({
      client_id: 'c',
    });
  });

  it('refuses nbf beyond the clock skew', async () => {
    await expect(
      verify(
        await sign(
          base()
            .setIssuedAt()
            .setNotBefore(nowSeconds() + SKEW + 30)
            .setExpirationTime('5m'),
        ),
      ),
    ).rejects.toThrow('claim "nbf"');
  });

  it('accepts exp a little in the past, within the clock skew, and refuses it beyond', async () => {
    await expect(verify(await sign(base().setExpirationTime(nowSeconds() - SKEW + 5)))).resolves.toBeTruthy();
    await expect(verify(await sign(base().setExpirationTime(nowSeconds() - SKEW - 5)))).rejects.toThrow('expired');
  });

  it('refuses a token with crit, even the b64 extension jose itself understands', async () => {
    const payload = new TextEncoder().encode(JSON.stringify({ client_id: 'c', iss: ISSUER, aud: AUDIENCE, exp: nowSeconds() + 300 }));
    const token = await new CompactSign(payload)
      .setProtectedHeader({ alg: 'RS256', kid: idp.kid, crit: ['b64'], b64: true })
      .sign(idp.privateKey);
    await expect(verify(token)).rejects.toThrow('crit');
  });

  it('accepts an ordinary token', async () => {
    await expect(verify(await idp.machine('c', ['admin']))).resolves.toMatchObject({ client_id: 'c' });
  });
});
