import { parseArgs } from 'node:util';
import { loadDevKey, mintDevToken, DEV_PLATFORM_CLIENT } from './dev-auth';
import { dataDir } from '../paths';
import { loadConfig } from '../config';

/**
 * `npm run token -- [--client-id ID] [--scope "admin read_models"] [--user NAME --groups "client:acme"] [--ttl 12h]`
 * Mints a token signed by the dev key of `npm start` (only meaningful while AUTH_JWKS_URL is unset).
 */
async function run() {
  const { values } = parseArgs({
    options: {
      'client-id': { type: 'string' },
      scope: { type: 'string' },
      user: { type: 'string' },
      groups: { type: 'string' },
      ttl: { type: 'string', default: '12h' },
    },
  });
  const { scopePrefix: prefix, groupsClaim } = loadConfig().auth;
  const scope = (values.scope ?? (values.user ? '' : 'admin'))
    .split(/[ ,]+/)
    .filter(Boolean)
    .map((s) => (s.startsWith(prefix) ? s : prefix + s))
    .join(' ');
  const claims: Record<string, unknown> = values.user
    ? { sub: values.user, username: values.user, [groupsClaim]: (values.groups ?? '').split(/[ ,]+/).filter(Boolean) }
    : { sub: values['client-id'] ?? DEV_PLATFORM_CLIENT, client_id: values['client-id'] ?? DEV_PLATFORM_CLIENT };
  if (scope) claims.scope = scope;
  const groups = (claims[groupsClaim] as string[] | undefined) ?? [];
  if (values.user && !scope && !groups.includes('admin')) {
    // Groups give a user tenants, not permissions: without a scope every route would answer 403.
    console.error('note: this token has no scope, so every route will answer 403; add e.g. --scope "client_read service_init"');
  }
  const { privateKey, publicJwk } = await loadDevKey(dataDir());
  console.log(await mintDevToken(privateKey, publicJwk.kid, claims, values.ttl));
}

run().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
