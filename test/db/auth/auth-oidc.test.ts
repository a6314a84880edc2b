import { spawn, ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Harness } from '../../helpers/harness';
import { freePort } from '../../../src/dev/temporal/dev-server';

/**
 * End to end with a real OAuth 2.0 authorization server (oidc-provider): a machine client obtains a JWT
 * access token with the client credentials grant, exactly as spec part 5 describes, and calls the API.
 */
describe('tokens from a real OAuth 2.0 authorization server', () => {
  let idp: ChildProcess;
  let issuer: string;
  let h: Harness;

  beforeAll(async () => {
    const port = await freePort();
    const clients = [
      { client_id: 'registry-admin', client_secret: 'admin-secret', scope: 'platform/admin platform/read_models' },
      { client_id: 'acme', client_secret: 'acme-secret', scope: 'platform/client_read platform/service_init' },
    ];
    idp = spawn(process.execPath, [path.resolve(__dirname, '../../helpers/oidc-provider.mjs'), String(port), JSON.stringify(clients)], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    issuer = await new Promise<string>((resolve, reject) => {
      idp.stdout!.on('data', (chunk: Buffer) => {
        const match = /ISSUER=(\S+)/.exec(chunk.toString());
        if (match) resolve(match[1]);
      });
      idp.once('exit', (code) => reject(new Error(`oidc-provider exited with ${code}`)));
    });
    h = await Harness.start({
      remoteIdp: { jwksUrl: `${issuer}/jwks`, issuer, audience: 'urn:model-orchestration' },
      env: { MACHINE_CLIENTS: JSON.stringify({ 'registry-admin': { access: 'platform' }, acme: { access: 'tenant', tenants: ['acme'] } }) },
    });
  });
  afterAll(async () => {
    await h?.stop();
    idp?.kill('SIGTERM');
  });

  async function clientCredentials(clientId: string, secret: string, scope: string) {
    const res = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret, scope }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { token_type: string; access_token: string };
    expect(body.token_type).toBe('Bearer');
    return body.access_token;
  }

  it('accepts a client-credentials JWT and applies its scopes and tenant class', async () => {
    const admin = await clientCredentials('registry-admin', 'admin-secret', 'platform/admin');
    expect((await h.api('PUT', '/v2/clients/acme', { token: admin, body: { name: 'Acme' } })).status).toBeLessThan(300);

    const acme = await clientCredentials('acme', 'acme-secret', 'platform/client_read');
    const own = await h.api('GET', '/v2/clients/acme', { token: acme });
    expect(own.status).toBe(200);
    expect(own.body.name).toBe('Acme');
    const registry = await h.api('GET', '/v2/models', { token: acme });
    expect(registry.status).toBe(403);
    const other = await h.api('GET', '/v2/clients/globex', { token: acme });
    expect(other.status).toBe(403);
  });

  it('rejects a token whose claims were changed after signing', async () => {
    const token = await clientCredentials('acme', 'acme-secret', 'platform/client_read');
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = `${header}.${Buffer.from(JSON.stringify({ ...claims, scope: 'platform/admin' })).toString('base64url')}.${signature}`;
    const res = await h.api('GET', '/v2/clients/acme', { token: tampered });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ success: false, message: expect.stringContaining('signature') });
  });
});
