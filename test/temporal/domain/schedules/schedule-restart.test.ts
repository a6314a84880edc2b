import { Harness, uid } from '../../../helpers/harness';
import { activeModel, eventually } from '../../../helpers/fixtures';
import { startOwnTemporal, type CrashableTemporal } from '../../../helpers/own-temporal';

describe('a schedule across restarts', () => {
  let temporal: CrashableTemporal | undefined;
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
  });

  it('keeps firing after the service and the Temporal server restart', async () => {
    temporal = await startOwnTemporal();
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

    // The service (API and worker) stops; then the Temporal server is killed and comes back on the same state and
    // ports, as a restarted host does. (Started anew on other ports, the production-shaped server serves its history
    // shards only once its old membership has expired: the first fire came 50 s after such a restart here.)
    await h.stop();
    h = undefined;
    await temporal.crash();
    await temporal.restart();
    const restartedAt = Date.now();
    h = await start();

    const read = await eventually(
      async () => {
        const res = await h!.api('GET', path);
        return res.status === 200 && res.body.next_fire_times.length > 0 && res.body;
      },
      60000,
      'the schedule read back',
    );
    expect(read.state.paused).toBe(false);
    await eventually(jobsAfter(restartedAt), 120000, 'a job fired after the restarts');
    await h.api('DELETE', path);
  }, 420000);
});
