import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knexFactory from 'knex';
import { Harness, uid } from '../helpers/harness';
import { activeModel, eventually } from '../helpers/fixtures';
import { testEnv } from '../helpers/test-env';
import { startDevServer } from '../../src/dev/temporal/dev-server';
import { startTemporalServer } from '../../src/dev/temporal/server';
import { ensureSearchAttributes } from '../../src/temporal/search-attributes';
import { TemporalConnection } from '../../src/temporal/connection';

/**
 * A Temporal server of this file's own, of the shape the run tests (TEST_TEMPORAL), whose state survives a stop:
 * the dev server's SQLite file, or the production-shaped server's two Postgres databases.
 */
async function ownTemporal(workDir: string, port?: number) {
  if ((process.env.TEST_TEMPORAL ?? 'dev') === 'dev') {
    const server = await startDevServer({ dbFile: path.join(workDir, 'temporal.db'), headless: true, port });
    return { address: server.address, stop: () => server.stop(), databases: [] as string[] };
  }
  const prefix = `mos_restart_${process.pid}`;
  const server = await startTemporalServer({ postgresUrl: testEnv.databaseUrl, databasePrefix: prefix, workDir, headless: true, port });
  return { address: server.address, stop: () => server.stop(), databases: [server.databases.main, server.databases.visibility] };
}

describe('a schedule across restarts', () => {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'mos-schedule-restart-'));
  let temporal: Awaited<ReturnType<typeof ownTemporal>> | undefined;
  let h: Harness | undefined;
  const env = () => ({
    TEMPORAL_ADDRESS: temporal!.address,
    TEMPORAL_TASK_QUEUE: 'schedule-restart',
    SCHEDULE_MIN_INTERVAL_SECONDS: '1',
  });
  const start = () => Harness.start({ worker: true, temporalAddress: temporal!.address, env: env() });

  afterAll(async () => {
    await h?.stop();
    await temporal?.stop();
    if (temporal?.databases.length) {
      const admin = knexFactory({ client: 'pg', connection: testEnv.databaseUrl, pool: { min: 0, max: 1 } });
      for (const db of temporal.databases) await admin.raw(`DROP DATABASE IF EXISTS ${db} WITH (FORCE)`);
      await admin.destroy();
    }
    rmSync(workDir, { recursive: true, force: true });
  });

  it('keeps firing after the service and the Temporal server restart', async () => {
    temporal = await ownTemporal(workDir);
    const connection = await TemporalConnection.open({ address: temporal.address });
    await ensureSearchAttributes(connection, 'default').finally(() => connection.close());
    h = await start();
    const modelId = await activeModel(h, { id: uid('restart-model') });
    // A 503 is the answer to repeat (nothing was written): a production-shaped server just started can refuse the
    // first Schedule calls on a loaded machine (seen once in a CI run under load).
    const created = await eventually(
      async () => {
        const res = await h!.api('POST', '/v2/inference-schedules', {
          body: {
            model_id: modelId,
            model_version: '1',
            spec: { intervals: [{ every_seconds: 1 }] },
            policies: { catchup_window_seconds: 10 },
          },
        });
        return res.status !== 503 && res;
      },
      60000,
      'the schedule create to be taken',
    );
    expect(created.status).toBe(201);
    const path = `/v2/inference-schedules/${created.body.schedule_id}`;
    const jobsAfter = (since: number) => async () => {
      const jobs = (await h!.api('GET', `/v2/jobs?schedule_id=${created.body.schedule_id}&limit=200`)).body.items as any[];
      return jobs.some((j) => j.status === 'success' && Date.parse(j.scheduled_at) > since) && jobs;
    };
    await eventually(jobsAfter(0), 30000, 'a first scheduled job');

    // The service (API and worker) and then the Temporal server stop; both come back on the same state.
    await h.stop();
    h = undefined;
    const port = Number(temporal.address.split(':')[1]);
    await temporal.stop();
    temporal = await ownTemporal(workDir, port);
    expect(temporal.address).toBe(`127.0.0.1:${port}`);
    const restartedAt = Date.now();
    h = await start();

    const read = await eventually(
      async () => {
        const res = await h!.api('GET', path);
        return res.status === 200 && res.body.next_fire_times.length > 0 && res.body;
      },
      // A restarted production-shaped server takes its history shards back once the old membership expires.
      120000,
      'the schedule read back from Temporal',
    );
    expect(read.state.paused).toBe(false);
    await eventually(jobsAfter(restartedAt), 120000, 'a job fired after the restarts');
    await h.api('DELETE', path);
  }, 420000);
});
