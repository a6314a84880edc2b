import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';

/** Where the recorded histories live; test/temporal/workflows/replay.test.ts replays every one of them. */
export const HISTORIES = path.join(__dirname, '../temporal/workflows/histories');

/**
 * With RECORD_HISTORIES=1 (`npm run histories:record`), writes the history of the workflow's run (its latest run
 * unless `runId` names one, e.g. the first of a chain that continued as new) as `<name>.json` for the replay test;
 * otherwise does nothing.
 */
export async function recordHistory(client: Client, workflowId: string, name: string, runId?: string): Promise<void> {
  if (!process.env.RECORD_HISTORIES) return;
  const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
  mkdirSync(HISTORIES, { recursive: true });
  writeFileSync(path.join(HISTORIES, `${name}.json`), historyToJSON(history));
}
