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
  // The connect under way: close() ends it too and waits for it, or a connection opened meanwhile would outlive the
  // listener (and, at npm start's Ctrl-C, meet the Postgres it started shutting down).
  let opening: { client: pg.Client; settled: Promise<void> } | undefined;

  function connect(): Promise<void> {
    const connection = (knex.client as { config: { connection: string | pg.ClientConfig } }).config.connection;
    const c = new pg.Client(typeof connection === 'string' ? { connectionString: connection } : connection);
    const attempt = open(c);
    const settled = attempt.then(
      () => undefined,
      () => undefined,
    );
    opening = { client: c, settled };
    void settled.then(() => {
      if (opening?.client === c) opening = undefined;
    });
    return attempt;
  }

  async function open(c: pg.Client): Promise<void> {
    c.on('notification', (msg) => {
      if (msg.channel === channel && msg.payload) handlers.onPayload(msg.payload);
    });
    c.on('error', (err) => {
      if (!closed) log.warn({ err, channel }, 'notification listener lost its connection; reconnecting');
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
        if (closed) return;
        log.warn({ err, channel }, 'notification listener cannot connect; retrying');
        retry();
      });
    }, retryMs);
  }

  const ready = connect().catch((err: unknown) => {
    if (closed) return;
    log.warn({ err, channel }, 'notification listener cannot connect; retrying');
    retry();
  });

  return {
    /** Settles once the first LISTEN is in place (or failed, and is being retried). */
    ready,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      if (opening) {
        const ended = Promise.all([opening.client.end().catch(() => undefined), opening.settled]);
        // Bounded: a server that does not answer (an outage) must not hold up a shutdown.
        await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 2000).unref())]);
      }
      await client?.end();
      client = undefined;
    },
  };
}
