import pg from 'pg';
import type { Knex } from 'knex';
import type { Logger } from 'pino';

/**
 * LISTENs on one channel on a connection of its own and hands each payload to `onPayload`. A lost connection is
 * opened again after `retryMs`; `onGap` runs once it is back (notifications sent meanwhile are lost, so the owner
 * looks at the state instead).
 */
export function listenOn(
  knex: Knex,
  channel: string,
  log: Logger,
  handlers: { onPayload: (payload: string) => void; onGap: () => void },
  retryMs = 2000,
): { ready: Promise<void>; close(): Promise<void> } {
  let client: pg.Client | undefined;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;

  async function connect(): Promise<void> {
    const connection = (knex.client as { config: { connection: string | pg.ClientConfig } }).config.connection;
    const c = new pg.Client(typeof connection === 'string' ? { connectionString: connection } : connection);
    c.on('notification', (msg) => {
      if (msg.channel === channel && msg.payload) handlers.onPayload(msg.payload);
    });
    c.on('error', (err) => {
      log.warn({ err, channel }, 'notification listener lost its connection; reconnecting');
      c.end().catch(() => undefined);
      if (client === c) client = undefined;
      retry();
    });
    await c.connect();
    await c.query(`LISTEN ${channel}`);
    if (closed) return void (await c.end());
    client = c;
  }

  function retry(): void {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      connect().then(handlers.onGap, (err: unknown) => {
        log.warn({ err, channel }, 'notification listener cannot connect; retrying');
        retry();
      });
    }, retryMs);
  }

  const ready = connect().catch((err: unknown) => {
    log.warn({ err, channel }, 'notification listener cannot connect; retrying');
    retry();
  });

  return {
    /** Settles once the first LISTEN is in place (or failed, and is being retried). */
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await client?.end();
      client = undefined;
    },
  };
}
