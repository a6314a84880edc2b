import pino from 'pino';
import { Client } from '@temporalio/client';
import { TemporalConnection } from '../../../../src/temporal/connection';
import { createApp } from '../../../../src/composition';
import { loadConfig } from '../../../../src/config';
import { createKnex } from '../../../../src/db/knex';
import { createJobGateway } from '../../../../src/temporal/job-gateway';
import { createTokenVerifier } from '../../../../src/auth/verifier';
import { freePort } from '../../../../src/dev/temporal/dev-server';
import { testEnv } from '../../../helpers/test-env';
import { TestIdp } from '../../../helpers/tokens';

describe('health when a dependency is down', () => {
  it('answers 503 naming the database when Postgres does not answer', async () => {
    const deadPort = await freePort();
    const knex = createKnex(`postgres://postgres@127.0.0.1:${deadPort}/none`);
    const connection = await TemporalConnection.open({ address: testEnv.temporalAddress });
    const temporal = new Client({ connection });
    const idp = await TestIdp.create();
    const config = loadConfig({ LOG_LEVEL: 'silent' });
    const { app } = createApp({
      config,
      knex,
      temporal,
      log: pino({ level: 'silent' }),
      inProcessNames: [],
      gateway: createJobGateway({ client: temporal, taskQueue: 'none', namespace: 'default', completionDeadlineSeconds: 1 }),
      verify: createTokenVerifier({ keys: idp.jwks() }),
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as any).port}/v2/health`);
      expect(res.status).toBe(503);
      const body = await res.json();
      expect(body).toMatchObject({ status: 'degraded', temporal: 'ok', database: expect.stringContaining('unavailable') });
    } finally {
      await new Promise((r) => server.close(r));
      await connection.close();
      await knex.destroy();
    }
  });
});
