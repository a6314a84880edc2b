import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { testEnv } from '../../helpers/test-env';

/**
 * Histories recorded from earlier versions of the job workflow (test/temporal/workflows/histories, written by
 * `npm run histories:record`) must replay on today's code: a change that would break running jobs fails here.
 * Keep old histories when the workflow changes; a change that must behave differently goes behind `patched()`
 * (docs/workflow-changes.md).
 */
const dir = path.join(__dirname, 'histories');
// Today's histories at the top, those of earlier workflow versions in a folder named for the change that followed.
const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.json'))
  .sort();

describe('replay of recorded job histories', () => {
  it('finds the committed histories', () => {
    expect(files).toEqual(expect.arrayContaining(['successful-job.json', 'timed-out-job.json', 'cascading-job.json']));
    expect(files).toEqual(
      expect.arrayContaining([
        'before-local-db-steps/successful-job.json',
        'before-local-db-steps/cascading-job.json',
        'before-one-step-outcome/cascading-job.json',
        'before-http-handlers/successful-job.json',
        'before-unrecorded-outcome/outcome-step-failed.json',
        'outcome-step-failed.json',
      ]),
    );
  });

  it.each(files)('replays %s without a determinism violation', async (file) => {
    const history = historyFromJSON(JSON.parse(readFileSync(path.join(dir, file), 'utf8')));
    await expect(
      Worker.runReplayHistory({ workflowBundle: { codePath: testEnv.workflowBundlePath } }, history, file),
    ).resolves.toBeUndefined();
  });
});
