import { createServer, Socket } from 'node:net';
import knexFactory from 'knex';
import pino from 'pino';
import { listenOn } from '../../../src/db/notification-channel';

describe('a notification listener', () => {
  it('ends a connection that is still opening when it is closed', async () => {
    // A server that accepts and never answers: the listener's connection stays mid-handshake.
    let accepted!: (socket: Socket) => void;
    const socket = new Promise<Socket>((resolve) => (accepted = resolve));
    const server = createServer((s) => accepted(s.resume()));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const knex = knexFactory({ client: 'pg', connection: `postgres://postgres@127.0.0.1:${port}/none` });
    try {
      const listener = listenOn(knex, 'mid_handshake', pino({ level: 'silent' }), { onPayload() {}, onGap() {} });
      const opened = await socket;
      const gone = new Promise((resolve) => opened.once('close', resolve));
      await listener.close();
      await gone; // before the fix, the connection outlived the listener (and this waited until the test's timeout)
    } finally {
      await knex.destroy();
      server.close();
    }
  }, 10000);
});
