import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger';

describe('the service log', () => {
  it('leaves out secrets and tokens, plain or sealed, wherever a caller put them', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const log = createLogger('info', 'test', sink);
    log.info({ webhook: { webhook_id: 'w1', secret: 'whsec_plain' }, auth: { token: 'eyJ.token' } }, 'created');
    log.info({ row: { webhook_id: 'w1', secret_sealed: 'sealed.v1.k1.a.b', previous_secret_sealed: 'sealed.v1.k1.c.d' } }, 'read');
    expect(lines).toHaveLength(2);
    const text = lines.join('');
    expect(text).toContain('"webhook_id":"w1"');
    for (const leaked of ['whsec_plain', 'eyJ.token', 'sealed.v1']) expect(text).not.toContain(leaked);
  });
});
