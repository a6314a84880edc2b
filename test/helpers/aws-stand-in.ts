import { createServer, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

type Answer = { status: number; body?: unknown; headers?: Record<string, string> };

/** A local HTTP server standing in for an AWS endpoint: records each request and answers as told. */
export class AwsStandIn {
  readonly requests: RecordedRequest[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** `answer` may return a promise: a stand-in that holds its answer plays a call in flight. */
  static async start(answer: (req: RecordedRequest) => Answer | Promise<Answer>): Promise<AwsStandIn> {
    let standIn: AwsStandIn;
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', async () => {
        const recorded = { method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
        standIn.requests.push(recorded);
        const { status, body, headers } = await answer(recorded);
        res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
        res.end(body === undefined ? '' : JSON.stringify(body));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    standIn = new AwsStandIn(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    return standIn;
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

export const TEST_AWS = { region: 'eu-west-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' } };
