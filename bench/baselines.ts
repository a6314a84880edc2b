import { createServer, IncomingMessage, ServerResponse, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import pg from 'pg';
import { jwtVerify, JWTVerifyGetKey } from 'jose';
import { Client } from '@temporalio/client';
import { WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { BareActivities } from './bare-workflows';

export const BARE_QUEUE = 'bench-bare';

/**
 * A bare worker on its own task queue: the bench's `bareJob` workflow and one activity that does nothing but
 * report back with the update, like a handler would (fire and forget).
 */
export async function startBareWorker(address: string, client: Client): Promise<{ stop(): Promise<void> }> {
  const connection = await NativeConnection.connect({ address });
  const activities: BareActivities = {
    async work(workflowId) {
      client.workflow
        .getHandle(workflowId)
        .executeUpdate('finish', { args: [{ ok: true }] })
        .catch(() => undefined);
    },
  };
  const worker = await Worker.create({ connection, taskQueue: BARE_QUEUE, workflowsPath: require.resolve('./bare-workflows'), activities });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

/** Starts a bare job workflow: workflow id, task queue, the same reuse and conflict policies as the service. */
export function startBare(client: Client, workflowId: string, mode: 'job' | 'park') {
  return client.workflow.start('bareJob', {
    workflowId,
    taskQueue: BARE_QUEUE,
    args: [mode, workflowId],
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
    workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
  });
}

const SERVICE = /^\/v2\/clients\/([^/]+)\/domains\/([^/]+)\/service\/([^/]+)$/;
const JOB = /^\/v2\/jobs\/([^/]+)$/;
const MODEL = /^\/v2\/models\/([^/]+)$/;

/**
 * A bare `node:http` + jose + pg handler doing the service's lookups by hand: verify the token (same key set,
 * issuer and algorithms), run one statement, answer the row as JSON. No framework, no query builder.
 */
export async function startBareHttp(
  databaseUrl: string,
  keys: JWTVerifyGetKey,
  issuer: string,
): Promise<{ url: string; stop(): Promise<void> }> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 10 });
  const answer = (res: ServerResponse, status: number, body: unknown) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(text) }).end(text);
  };
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const auth = req.headers.authorization ?? '';
    if (!auth.startsWith('Bearer ')) return answer(res, 401, { success: false, message: 'missing bearer token' });
    try {
      await jwtVerify(auth.slice(7), keys, { issuer, algorithms: ['RS256'], requiredClaims: ['exp'] });
    } catch {
      return answer(res, 401, { success: false, message: 'invalid bearer token' });
    }
    const path = req.url ?? '';
    let m: RegExpExecArray | null;
    let result: pg.QueryResult | undefined;
    if ((m = SERVICE.exec(path))) {
      result = await pool.query(
        'select s.* from services s join domains d on d.domain_uuid = s.domain_uuid where d.client_id = $1 and d.domain_id = $2 and s.service_id = $3',
        [m[1], m[2], m[3]],
      );
    } else if ((m = JOB.exec(path))) {
      result = await pool.query(
        `select j.*, d.domain_id, s.service_id from model_jobs j left join domains d on d.domain_uuid = j.domain_uuid
         left join services s on s.service_uuid = j.service_uuid where j.job_id = $1`,
        [m[1]],
      );
    } else if ((m = MODEL.exec(path))) {
      result = await pool.query(
        `select m.*, case when exists (select 1 from model_versions v where v.model_id = m.id and v.status = 'active')
         then 'active' else 'pending' end as status,
         (select to_jsonb(v) from model_versions v where v.model_id = m.id order by v.created_at desc, v.version desc limit 1) as version
         from models m where m.id = $1`,
        [m[1]],
      );
    }
    if (!result?.rows[0]) return answer(res, 404, { success: false, message: 'not found' });
    return answer(res, 200, result.rows[0]);
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err) => answer(res, 500, { success: false, message: String(err) }));
  });
  server.keepAliveTimeout = 30000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await pool.end();
    },
  };
}
