import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { Harness, uid } from '../helpers/harness';
import { freePort } from '../../src/dev/temporal/dev-server';
import { launchBrowser, requireConsoleBuild } from './browser';

/** Starts the suite's test IdP (oidc-provider) with a public client for the console's Authorization Code + PKCE. */
async function startIdp(port: number, consoleClient: object): Promise<ChildProcess> {
  const admin = [{ client_id: 'registry-admin', client_secret: 'admin-secret', scope: 'platform/admin' }];
  const args = [
    path.resolve(__dirname, '../helpers/oidc-provider.mjs'),
    String(port),
    JSON.stringify(admin),
    JSON.stringify(consoleClient),
  ];
  const idp = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise<void>((resolve, reject) => {
    idp.stdout.on('data', (chunk: Buffer) => /ISSUER=/.test(chunk.toString()) && resolve());
    idp.once('exit', (code) => reject(new Error(`oidc-provider exited with ${code}`)));
  });
  return idp;
}

const MINE = uid('client');

describe('console sign-in with OpenID Connect (Authorization Code + PKCE)', () => {
  const audience = 'urn:model-orchestration';
  let h: Harness;
  let idp: ChildProcess;
  let browser: Browser;
  let issuer: string;

  beforeAll(async () => {
    requireConsoleBuild();
    const port = await freePort();
    issuer = `http://127.0.0.1:${port}`;
    idp = await startIdp(port, {
      client_id: 'mos-console',
      redirect_uri: 'http://127.0.0.1/console/oidc-callback',
      scope: 'platform/client_read',
      accounts: { alice: [`client:${MINE}`] },
    });
    [h, browser] = await Promise.all([
      Harness.start({
        remoteIdp: { jwksUrl: `${issuer}/jwks`, issuer, audience },
        env: {
          MACHINE_CLIENTS: JSON.stringify({ 'registry-admin': { access: 'platform' } }),
          AUTH_ISSUER: issuer,
          AUTH_AUDIENCE: audience,
          CONSOLE_OIDC_ISSUER: issuer,
          CONSOLE_OIDC_CLIENT_ID: 'mos-console',
          CONSOLE_OIDC_SCOPE: 'openid platform/client_read',
        },
      }),
      launchBrowser(),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    idp?.kill('SIGTERM');
    await h?.stop();
  });

  it("signs a user in at the identity provider and comes back to the page asked for, with the user's tenants only", async () => {
    const theirs = uid('client');
    // The tenants, made by the IdP's administrator client (the app trusts only this IdP's tokens).
    const grant = await fetch(`${issuer}/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: 'registry-admin',
        client_secret: 'admin-secret',
        scope: 'platform/admin',
      }),
    });
    const granted = (await grant.json()) as { access_token?: string; error_description?: string };
    const admin = granted.access_token;
    if (!admin) throw new Error(`the IdP gave no admin token: ${grant.status} ${granted.error_description}`);
    for (const clientId of [MINE, theirs]) {
      const made = await h.api('PUT', `/v2/clients/${clientId}`, { token: admin, body: { name: clientId } });
      expect([made.status, made.body.message]).toEqual([201, undefined]);
    }
    const context = await browser.newContext({ baseURL: h.baseUrl });
    context.setDefaultTimeout(30_000);
    const page = await context.newPage();
    await page.goto('/console/tenants');
    await page.getByRole('button', { name: `Sign in with 127.0.0.1:${new URL(issuer).port}` }).click();
    // The provider's own login and consent pages (oidc-provider's development interactions).
    await page.locator('input[name="login"]').fill('alice');
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.locator('button[type="submit"]').click(); // consent
    await page.getByRole('link', { name: MINE }).waitFor();
    expect(page.url()).toBe(`${h.baseUrl}/console/tenants`); // the page asked for, no code left in the URL
    expect(await page.getByRole('link', { name: theirs }).count()).toBe(0);
    expect(await page.getByText('Signed in as').textContent()).toContain('alice');
    await context.close();
  });
});
