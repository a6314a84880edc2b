import net from 'node:net';
import { Harness, uid } from '../../helpers/harness';
import { activeModel } from '../../helpers/fixtures';

/** What a raw client got before the server closed the connection, and when (ms after connecting). */
async function untilClosed(
  port: number,
  send: (socket: net.Socket) => void,
  giveUpMs: number,
): Promise<{ answer: string; closedAfterMs: number | null }> {
  const socket = net.connect(port, '127.0.0.1');
  const started = Date.now();
  let answer = '';
  socket.on('data', (d) => (answer += d.toString()));
  socket.on('error', () => undefined);
  socket.once('connect', () => send(socket));
  const closed = await new Promise<boolean>((resolve) => {
    const giveUp = setTimeout(() => resolve(false), giveUpMs);
    socket.once('close', () => {
      clearTimeout(giveUp);
      resolve(true);
    });
  });
  const closedAfterMs = closed ? Date.now() - started : null;
  socket.destroy();
  return { answer, closedAfterMs };
}

/** Writes `text` a byte every `everyMs` until the socket closes. */
function drip(socket: net.Socket, text: string, everyMs: number) {
  let i = 0;
  const timer = setInterval(() => {
    if (socket.destroyed || i >= text.length) return clearInterval(timer);
    socket.write(text[i++]);
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

/** A request body sent a byte a second was read for 237 s (Node's 300 s default applied): issue 25. */
describe('slow clients', () => {
  let h: Harness;
  let port: number;
  let token: string;
  beforeAll(async () => {
    h = await Harness.start({ env: { HTTP_HEADERS_TIMEOUT_SECONDS: '1', HTTP_REQUEST_TIMEOUT_SECONDS: '2' } });
    port = Number(new URL(h.baseUrl).port);
    token = await h.adminToken();
  });
  afterAll(() => h.stop());

  it('get a 408 and a closed connection when the body outlasts the request timeout', async () => {
    const body = JSON.stringify({ id: uid('slow'), name: 'slow', description: '', metadata: {}, handlers: {} });
    const { answer, closedAfterMs } = await untilClosed(
      port,
      (s) => {
        s.write(`POST /v2/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n`);
        s.write(`Content-Length: ${body.length}\r\n\r\n`);
        drip(s, body, 100);
      },
      10_000,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeLessThan(4_000);
  });

  it('get a 408 when the headers outlast the headers timeout', async () => {
    const { answer, closedAfterMs } = await untilClosed(
      port,
      (s) => drip(s, `GET /v2/models HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n\r\n`, 100),
      10_000,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(closedAfterMs).toBeLessThan(3_000);
  });

  it('are cut off when they connect and send nothing', async () => {
    const { closedAfterMs } = await untilClosed(port, () => undefined, 10_000);
    expect(closedAfterMs).not.toBeNull();
    expect(closedAfterMs).toBeLessThan(3_000);
  });

  it('do not cut a read that waits for its job longer than the request timeout: it limits receiving only', async () => {
    const modelId = await activeModel(h);
    const jobId = uid('job');
    await h
      .knex('model_jobs')
      .insert({ job_id: jobId, model_id: modelId, model_version: '1', job_type: 'inference', trigger: 'direct', status: 'running' });
    const started = Date.now();
    const res = await h.api('GET', `/v2/jobs/${jobId}?wait=4`);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('running');
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_900);
  });
});
