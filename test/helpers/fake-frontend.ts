import { readFileSync } from 'node:fs';
import { Server, ServerCredentials, status, type ServiceDefinition, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';

/** One call the fake frontend took: the method, the `authorization` header, and the common name of the client certificate. */
export interface TakenCall {
  method: string;
  authorization?: string;
  clientName?: string;
}

export interface FakeFrontend {
  address: string;
  calls: TakenCall[];
  /** Stops at once, cutting the connections (a restart of the frontend, for rotation tests). */
  stop(): Promise<void>;
  /** Serves again on the same port, with the same TLS files read anew. */
  restart(): Promise<void>;
}

export interface FakeFrontendOptions {
  /** The server's certificate and key (files); plaintext without them. */
  cert?: string;
  key?: string;
  /** Client CA (file): when set, a client certificate it signed is required (mTLS). */
  clientCa?: string;
  /** When set, calls without `Authorization: Bearer <apiKey>` are refused UNAUTHENTICATED, as Temporal Cloud does. */
  apiKey?: string;
  port?: number;
}

// The workflow service methods a connection calls while it connects; each answers an empty (default) message.
const METHODS = ['GetSystemInfo', 'DescribeNamespace'];

/**
 * A Temporal frontend of a test's own, on loopback, over TLS (or plaintext): enough of the workflow service for a connection to be
 * made and checked, and a record of what each call carried (the API key's header, the client certificate).
 */
export async function startFakeFrontend(options: FakeFrontendOptions): Promise<FakeFrontend> {
  const calls: TakenCall[] = [];
  const passThrough = (b: Buffer) => b;
  const definition: ServiceDefinition = Object.fromEntries(
    METHODS.map((name) => [
      name,
      {
        path: `/temporal.api.workflowservice.v1.WorkflowService/${name}`,
        requestStream: false,
        responseStream: false,
        requestSerialize: passThrough,
        requestDeserialize: passThrough,
        responseSerialize: passThrough,
        responseDeserialize: passThrough,
      },
    ]),
  );
  const handlers = Object.fromEntries(
    METHODS.map((name) => [
      name,
      (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
        const authorization = call.metadata.get('authorization')[0]?.toString();
        const clientName = call.getAuthContext()?.sslPeerCertificate?.subject?.CN;
        calls.push({ method: name, authorization, clientName: typeof clientName === 'string' ? clientName : undefined });
        if (options.apiKey && authorization !== `Bearer ${options.apiKey}`)
          return callback({ code: status.UNAUTHENTICATED, details: 'Request unauthorized.' });
        callback(null, Buffer.alloc(0));
      },
    ]),
  );
  let server: Server | undefined;
  let port = options.port ?? 0;
  const listen = async () => {
    server = new Server();
    server.addService(definition, handlers);
    const credentials =
      options.cert && options.key
        ? ServerCredentials.createSsl(
            options.clientCa ? readFileSync(options.clientCa) : null,
            [{ cert_chain: readFileSync(options.cert), private_key: readFileSync(options.key) }],
            Boolean(options.clientCa),
          )
        : ServerCredentials.createInsecure();
    port = await new Promise<number>((resolve, reject) =>
      server!.bindAsync(`127.0.0.1:${port}`, credentials, (err, bound) => (err ? reject(err) : resolve(bound))),
    );
  };
  await listen();
  return {
    get address() {
      return `127.0.0.1:${port}`;
    },
    calls,
    async stop() {
      server?.forceShutdown();
      server = undefined;
    },
    async restart() {
      server?.forceShutdown();
      await listen();
    },
  };
}
