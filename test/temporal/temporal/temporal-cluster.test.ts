import type { Client } from '@temporalio/client';
import { connectTemporalClient } from '../../../src/temporal/connection';
import { temporalEndpointSettings } from '../../../src/temporal/connection-settings';
import { testEnv } from '../../helpers/test-env';
import { uid } from '../../helpers/harness';

/*
 * The multi-node cluster `npm run test:cluster` runs the README quick start on (TEST_TEMPORAL=cluster, started by
 * global setup: src/dev/temporal/cluster.ts): that it is several hosts sharing one state, and that each of its
 * frontends requires the client certificate the quick start's service connects with.
 */
const describeOnCluster = process.env.TEST_TEMPORAL === 'cluster' ? describe : describe.skip;

describeOnCluster('the multi-node Temporal cluster with mTLS', () => {
  const clients: Client[] = [];
  const connect = async (address: string, env = testEnv.temporalTlsEnv) => {
    const client = await connectTemporalClient({ address, ...temporalEndpointSettings(env) }, 'default', 20000);
    clients.push(client);
    return client;
  };
  afterEach(async () => {
    for (const client of clients.splice(0)) await client.connection.close();
  });

  it('has two frontends on addresses of their own', () => {
    const frontends = testEnv.temporalFrontends;
    expect(frontends).toHaveLength(2);
    expect(new Set(frontends.map((f) => f.split(':')[0])).size).toBe(2);
  });

  it('serves a workflow started through one frontend through the other', async () => {
    const [first, second] = testEnv.temporalFrontends;
    const workflowId = uid('cluster-probe');
    const started = await (await connect(first)).workflow.start('clusterProbe', { workflowId, taskQueue: uid('no-worker') });
    const seen = await (await connect(second)).workflow.getHandle(workflowId).describe();
    expect(seen.runId).toBe(started.firstExecutionRunId);
    await started.terminate('probe done');
  });

  it.each([0, 1])('refuses a client without a certificate on frontend %i, naming what it requires', async (i) => {
    const address = testEnv.temporalFrontends[i];
    const { TEMPORAL_TLS_SERVER_CA_CERT_PATH } = testEnv.temporalTlsEnv;
    await expect(connect(address, { TEMPORAL_TLS_SERVER_CA_CERT_PATH })).rejects.toThrow('requires a client certificate (mTLS)');
  });
});
