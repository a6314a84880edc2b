import { status } from '@grpc/grpc-js';
import { Harness, uid } from '../../helpers/harness';
import { activeModel, eventually } from '../../helpers/fixtures';
import { FaultProxy, FaultyLink } from '../../helpers/toxiproxy';
import { testEnv } from '../../helpers/test-env';
import { TemporalConnection } from '../../../src/temporal/connection';

/**
 * A call that waits for a gRPC retry when its connection closes must end then, not later from a timer: the
 * SDK's own retry throws "Channel has been shut down" from that timer, an uncaught exception after close
 * (it failed random CI suites). Temporal is cut behind Toxiproxy so that every call waits for a retry.
 */
describe('closing while Temporal calls wait for a retry', () => {
  let faults: FaultProxy;
  let temporal: FaultyLink;
  beforeAll(async () => {
    faults = await FaultProxy.start();
    temporal = await faults.link(uid('temporal'), testEnv.temporalAddress);
  });
  afterAll(async () => {
    await faults.stop();
  });

  it('ends every waiting call at close with its last status, 25 times in a row', async () => {
    for (let round = 0; round < 25; round++) {
      await temporal.restore();
      const connection = await TemporalConnection.open({ address: temporal.address });
      await temporal.cut();
      const calls = [
        connection.workflowService.getSystemInfo({}),
        connection.workflowService.describeNamespace({ namespace: 'default' }),
        connection.workflowService.listWorkflowExecutions({ namespace: 'default', pageSize: 1 }),
      ].map((call) =>
        call.then(
          () => 'answered',
          (err: { code?: number }) => err.code,
        ),
      );
      // Once the channel has failed to reach the server, every call made before has failed once and waits for a retry.
      await eventually(async () => connection.unreachable, 10000, 'the channel to fail to reach Temporal');
      const closedAt = Date.now();
      await connection.close();
      const answers = await Promise.race([Promise.all(calls), new Promise((r) => setTimeout(() => r('still waiting'), 2000))]);
      expect({ round, answers }).toEqual({ round, answers: [status.UNAVAILABLE, status.UNAVAILABLE, status.UNAVAILABLE] });
      expect(Date.now() - closedAt).toBeLessThan(2000);
      expect(connection.waitingRetries).toBe(0);
    }
  }, 120000);

  it('stops the app within its bound while its job start and readiness check wait for Temporal', async () => {
    await temporal.restore();
    const h = await Harness.start({ temporalAddress: temporal.address });
    try {
      const modelId = await activeModel(h);
      // Jobs are taken while the last readiness answer (reused for a minute) said Temporal could start them.
      expect((await h.api('GET', '/v2/health/ready')).status).toBe(200);
      await temporal.cut();
      // The start is taken (the row is committed) and runs in the background; readiness asks Temporal too.
      expect((await h.api('POST', `/v2/models/${modelId}/versions/1/infer`, { body: {} })).status).toBe(202);
      expect((await h.api('GET', '/v2/health/ready')).status).toBe(503);
    } finally {
      const stopping = Date.now();
      await h.stop();
      // The start's own bound (5 s) is the longest wait left; nothing is left to fire after it.
      expect(Date.now() - stopping).toBeLessThan(5000 + 3000);
    }
  }, 120000);
});
