import type { Knex } from 'knex';
import { createKnex } from '../../../src/db/knex';
import { freePort } from '../../../src/dev/temporal/dev-server';
import { serveJwks } from '../../../src/dev/dev-auth';
import { spawnApiProcess, killHard } from '../../helpers/worker-process';
import { testEnv } from '../../helpers/test-env';
import { TestIdp, ISSUER, AUDIENCE } from '../../helpers/tokens';
import { uid } from '../../helpers/harness';
import { eventually } from '../../helpers/fixtures';

type Outcome = { status: number } | { error: string };

describe('graceful drain of the API on SIGTERM', () => {
  let knex: Knex;
  let jwks: Awaited<ReturnType<typeof serveJwks>>;
  let idp: TestIdp;
  beforeAll(async () => {
    knex = createKnex(testEnv.databaseUrl, { max: 2 });
    idp = await TestIdp.create();
    jwks = await serveJwks(idp.publicJwk);
  });
  afterAll(async () => {
    await knex.destroy();
    await new Promise((r) => jwks.server.close(r));
  });

  it('turns not-ready, stops accepting, and finishes every request that had started', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const api = await spawnApiProcess({
      PORT: String(port),
      DATABASE_URL: testEnv.databaseUrl,
      TEMPORAL_ADDRESS: testEnv.temporalAddress,
      AUTH_JWKS_URL: jwks.url,
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: AUDIENCE,
      MACHINE_CLIENTS: JSON.stringify({ ops: { access: 'platform' } }),
      // The load balancer's window: its poll (every 50 ms below) must see the 503 before the listener closes, with
      // room for a loaded machine (at 1 s, a CI run's burst was still sending when the listener closed).
      SHUTDOWN_DELAY_SECONDS: '3',
      SHUTDOWN_TIMEOUT_SECONDS: '20',
      // More connections than the suite's usual 4: four requests hold one each on the lock while the burst needs its own.
      DATABASE_POOL_MAX: '8',
    });
    try {
      const token = await idp.machine('ops', ['admin']);
      const clientId = uid('drain');
      const call = async (method: string, path: string, body?: unknown): Promise<Outcome> => {
        try {
          const res = await fetch(`${base}${path}`, {
            method,
            headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
            body: body ? JSON.stringify(body) : undefined,
          });
          await res.arrayBuffer();
          return { status: res.status };
        } catch (err) {
          return { error: `${(err as Error).message} ${((err as Error).cause as Error | undefined)?.message ?? ''}` };
        }
      };
      expect(await call('PUT', `/v2/clients/${clientId}`, { name: 'before' })).toEqual({ status: 201 });
      expect((await fetch(`${base}/v2/health/ready`)).status).toBe(200);

      // Slow requests: the test holds the tenant's row lock, so these updates wait in Postgres across the shutdown.
      const lock = await knex.transaction();
      await lock('clients').where({ client_id: clientId }).forUpdate();
      const slow = Array.from({ length: 4 }, () => call('PUT', `/v2/clients/${clientId}/new_status`, { status: 'active' }));
      await eventually(
        async () => {
          const { rows } = await knex.raw(
            `select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()`,
          );
          return rows[0].n >= 4;
        },
        10000,
        'the slow requests to wait on the lock',
      );

      // A burst of fast requests from clients that, like a load balancer, send nothing new once readiness says 503.
      let notReady = false;
      const burst: Outcome[] = [];
      let sentAfterSignal = 0;
      let signalled = false;
      const workers = Array.from({ length: 6 }, async () => {
        while (!notReady) {
          if (signalled) sentAfterSignal++;
          burst.push(await call('GET', `/v2/clients/${clientId}`));
        }
      });
      const poller = (async () => {
        while (!notReady) {
          await new Promise((r) => setTimeout(r, 50));
          const ready = await call('GET', '/v2/health/ready');
          if (!('status' in ready) || ready.status === 503) notReady = true;
        }
      })();
      await new Promise((r) => setTimeout(r, 300));

      const exited = new Promise<number | null>((r) => api.once('exit', (code) => r(code)));
      api.kill('SIGTERM');
      signalled = true;
      await poller;
      await Promise.all(workers);

      // Once the delay has passed the listener is closed: new connections are refused while the slow requests run on.
      await eventually(
        async () => {
          const refused = await call('GET', '/v2/health/live');
          return 'error' in refused && refused.error.includes('ECONNREFUSED');
        },
        10000,
        'the API to stop accepting',
      );
      expect(api.exitCode).toBeNull();
      await lock.commit();

      expect(await Promise.all(slow)).toEqual(Array(4).fill({ status: 200 }));
      expect(burst.length).toBeGreaterThan(10);
      expect(sentAfterSignal).toBeGreaterThan(0);
      expect(burst.filter((o) => !('status' in o) || o.status !== 200)).toEqual([]);
      expect(await exited).toBe(0);
      expect(api.output()).toContain('"outcome":"drained"');
      expect(api.output()).toContain('API stopped');
    } finally {
      await killHard(api);
    }
  });
});
