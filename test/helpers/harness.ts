import { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import pino from 'pino';
import { Client, Connection } from '@temporalio/client';
import { InterceptingCall, Metadata, status, type Interceptor } from '@grpc/grpc-js';
import { TemporalConnection } from '../../src/temporal/connection';
import type { Worker } from '@temporalio/worker';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { ECSClient } from '@aws-sdk/client-ecs';
import { loadConfig, Config } from '../../src/config';
import { TEST_SECRET_KEYS } from './secret-keys';
import { createKnex } from '../../src/db/knex';
import { JobGateway } from '../../src/domain/ports/job-gateway.port';
import { createTokenVerifier, verifierFromConfig } from '../../src/auth/verifier';
import { builtinImplementations, InProcessRegistry } from '../../activities/in-process/registry';
import { ServiceMetrics } from '../../src/observability/metrics';
import { poolStats } from '../../src/db/pool-stats';
import type { Tracing } from '../../src/observability/tracing';
import { testEnv } from './test-env';
import { TestIdp, ISSUER, AUDIENCE } from './tokens';
import { buildOpenApiDocument } from '../../src/openapi/document';
import { ContractChecker, contractMiddleware } from './contract';
import {
  composeApi,
  composeWorker,
  slotReleaserFor,
  temporalClientInterceptors,
  type ApiParts,
  type WorkerParts,
} from '../../src/composition';

export const PLATFORM_CLIENT = 'platform-app';
export const ALL_SCOPES = ['admin'];

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface HarnessOptions {
  worker?: boolean;
  inProcess?: InProcessRegistry;
  lambda?: LambdaClient;
  ecs?: ECSClient;
  env?: Record<string, string>;
  /** Where the worker logs (silent by default), for tests that assert a warning. */
  workerLog?: import('pino').Logger;
  /** Postgres URL of the API and the worker (e.g. through a Toxiproxy proxy); the test database by default. */
  databaseUrl?: string;
  /** Postgres URL of the worker alone, when it differs from the API's. */
  workerDatabaseUrl?: string;
  /** Temporal frontend of the API's client (e.g. through a Toxiproxy proxy); the worker always connects directly. */
  temporalAddress?: string;
  /** Verify tokens against a remote identity provider instead of the test key. */
  remoteIdp?: { jwksUrl: string; issuer: string; audience: string };
  /** Spans from the API, the client and the worker; the worker then bundles its workflows with the tracing interceptors. */
  tracing?: Tracing;
  /** Activity interceptors of the worker (e.g. to hold a step after it committed, while a test crashes Temporal). */
  activityInterceptors?: import('@temporalio/worker').ActivityInterceptorsFactory[];
  /**
   * Run the releaser of held jobs (as the worker process does), on notifications only: its periodic sweep would
   * start other files' held jobs on this harness's task queue.
   */
  releaser?: boolean;
  /** Offer the console's "use the dev admin token" button with this harness's admin token, as `npm start` does. */
  consoleDevToken?: boolean;
}

/** A unique id for this test's tenants and models, so tests never depend on each other. */
export function uid(prefix = 't'): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

/**
 * The real app against the test database and the test Temporal server, on a random port,
 * with an optional worker on a task queue of its own.
 */
export class Harness {
  worker?: Worker;
  private workerRun?: Promise<void>;
  private workerParts?: WorkerParts;
  /** Responses that broke the OpenAPI document, by request id, until a test claims them. */
  /** The worker's own pool, as in production where it is another process. */
  private workerKnex?: Knex;
  private releaser?: { stop(): Promise<void> };
  /** The API's `?wait=` listener: how many reads of a job it holds. */
  finals!: { held(jobId: string): number };

  private constructor(
    readonly config: Config,
    readonly knex: Knex,
    readonly temporal: Client,
    readonly gateway: JobGateway,
    readonly idp: TestIdp,
    readonly server: Server,
    readonly baseUrl: string,
    private readonly options: HarnessOptions,
    /** The app's router, so tests can walk every declared route. */
    readonly router: import('@koa/router').default,
    private readonly violations: Map<string, string[]>,
    /** The metrics of this harness's API (and of its in-process worker, as in one `npm start` process). */
    readonly metrics: ServiceMetrics,
    /** The API's parts: its `close` settles the app's job starts and `?wait=` reads, then closes the server. */
    private readonly apiParts: Pick<ApiParts, 'close'>,
    /** The calls the db tier's stand-in for Temporal refused (none when the run has a Temporal). */
    private readonly refusedTemporalCalls: string[],
  ) {}

  /** Throws when the response with this request id contradicted the OpenAPI document. */
  assertContract(requestId: string | null): void {
    const problems = requestId ? this.violations.get(requestId) : undefined;
    if (!problems) return;
    this.violations.delete(requestId!);
    throw new Error(`response contradicts the OpenAPI document:\n${problems.join('\n')}`);
  }

  static async start(options: HarnessOptions = {}): Promise<Harness> {
    const config = loadConfig({
      TEMPORAL_ADDRESS: testEnv.hasTemporal ? testEnv.temporalAddress : NO_TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: uid('queue'),
      TEMPORAL_UI_URL: 'http://temporal-ui.test',
      AUTH_ISSUER: ISSUER,
      AUTH_AUDIENCE: AUDIENCE,
      MACHINE_CLIENTS: JSON.stringify({ [PLATFORM_CLIENT]: { access: 'platform' } }),
      LOG_LEVEL: 'silent',
      // Tests stop workers with activities in flight on purpose; they need no grace period.
      WORKER_SHUTDOWN_GRACE_SECONDS: '0',
      SECRET_KEYS: TEST_SECRET_KEYS,
      // The API and the worker of a harness share this config, so they share the job tokens' key.
      JOB_TOKEN_KEYS: `test:${randomBytes(32).toString('base64')}`,
      // The probe of Temporal's fairness starts workflows on the shared server; the files that test it turn it on.
      TEMPORAL_FAIRNESS_PROBE: 'off',
      ...options.env,
    });
    const log = pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' });
    const knex = createKnex(options.databaseUrl ?? testEnv.databaseUrl, { max: 5, name: 'mos-test-api' });
    const refused: string[] = [];
    const connection =
      testEnv.hasTemporal || options.temporalAddress
        ? await TemporalConnection.open({ address: options.temporalAddress ?? testEnv.temporalAddress })
        : refusingTemporal(refused);
    const metrics = new ServiceMetrics({ pool: poolStats(knex), defaultMetrics: false });
    const temporal = new Client({
      connection,
      namespace: config.temporal.namespace,
      interceptors: { workflow: temporalClientInterceptors(metrics, options.tracing) },
    });
    const idp = await TestIdp.create();
    const inProcess = options.inProcess ?? builtinImplementations;
    const remote = options.remoteIdp;
    const verify = remote
      ? verifierFromConfig({ ...config.auth, jwksUrl: remote.jwksUrl, issuer: remote.issuer, audience: remote.audience })
      : createTokenVerifier({ keys: idp.jwks(), issuer: ISSUER, audience: AUDIENCE });
    // Every response of every integration test is checked against the document the service serves.
    const violations = new Map<string, string[]>();
    const checker = new ContractChecker(buildOpenApiDocument());
    const api = composeApi({
      config,
      knex,
      temporal,
      log,
      metrics,
      tracing: options.tracing,
      verify,
      inProcessNames: Object.keys(inProcess),
      console: { devToken: options.consoleDevToken ? await idp.machine(PLATFORM_CLIENT, ALL_SCOPES) : undefined },
      outerMiddleware: [
        contractMiddleware(checker, (problems, requestId) => violations.set(requestId ?? `unknown-${violations.size}`, problems)),
      ],
    });
    const server = await api.listen(0, '127.0.0.1');
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    config.publicBaseUrl = baseUrl;
    const harness = new Harness(
      config,
      knex,
      temporal,
      api.gateway,
      idp,
      server,
      baseUrl,
      { ...options, inProcess },
      api.router,
      violations,
      metrics,
      api,
      refused,
    );
    harness.finals = api.finals;
    if (options.worker) await harness.startWorker();
    if (options.releaser) {
      const releaser = slotReleaserFor({ knex, gateway: api.gateway, log, metrics, config, sweepMs: 3_600_000 });
      await releaser.ready;
      harness.releaser = releaser;
    }
    return harness;
  }

  async startWorker(): Promise<void> {
    this.workerKnex = createKnex(this.options.workerDatabaseUrl ?? this.options.databaseUrl ?? testEnv.databaseUrl, {
      max: 5,
      name: 'mos-test-worker',
    });
    const parts = await composeWorker({
      config: this.config,
      knex: this.workerKnex,
      temporal: this.temporal,
      log: this.options.workerLog ?? pino({ level: 'silent' }),
      metrics: this.metrics,
      tracing: this.options.tracing,
      inProcess: this.options.inProcess!,
      lambda: this.options.lambda,
      ecs: this.options.ecs,
      // With tracing, the worker bundles workflows/ itself, adding the tracing workflow interceptors.
      workflowBundle: this.options.tracing ? undefined : { codePath: testEnv.workflowBundlePath },
      activityInterceptors: this.options.activityInterceptors,
      // Tests provoke activity failures on purpose; the SDK would log each one.
      sdkLogLevel: 'ERROR',
      // Tests share one database across task queues: another file's rows are not this worker's to reconcile or
      // dispatch (the `releaser` option runs a releaser on notifications only). Nor does it serve /metrics.
      loops: false,
      serveMetrics: false,
    });
    this.worker = parts.worker;
    this.workerParts = parts;
    this.workerRun = parts.run();
  }

  async stopWorker(): Promise<void> {
    if (!this.workerParts) return;
    const { workerParts, workerRun, workerKnex } = this;
    this.workerParts = undefined;
    this.worker = undefined;
    await workerParts.close();
    await workerKnex?.destroy();
    // A worker that failed fails the test that stops it.
    await workerRun;
  }

  /** Admin machine token of the platform client: every permission, every tenant. */
  adminToken(): Promise<string> {
    return this.idp.machine(PLATFORM_CLIENT, ALL_SCOPES);
  }

  /** One request; `timeoutMs` (default 30 s) bounds it, so a hang fails the test instead of stalling it. */
  async api<T = any>(
    method: string,
    path: string,
    options: { token?: string | null; body?: unknown; headers?: Record<string, string>; timeoutMs?: number } = {},
  ): Promise<ApiResponse<T>> {
    const token = options.token === undefined ? await this.adminToken() : options.token;
    const headers: Record<string, string> = { ...options.headers };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (options.body !== undefined) headers['Content-Type'] ??= 'application/json';
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 30000),
    });
    const text = await response.text();
    let body: any = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // not JSON: keep the text
    }
    this.assertContract(response.headers.get('x-request-id'));
    return { status: response.status, body, headers: response.headers };
  }

  async stop(): Promise<void> {
    await this.releaser?.stop();
    await this.stopWorker();
    await this.apiParts.close();
    await this.temporal.connection.close();
    await this.knex.destroy();
    // Responses to requests made around api() (raw fetch, the typed client) are checked too.
    const unclaimed = [...this.violations.values()].flat();
    if (unclaimed.length) throw new Error(`responses contradicted the OpenAPI document:\n${unclaimed.join('\n')}`);
    if (this.refusedTemporalCalls.length)
      throw new Error(
        `this file called Temporal (${[...new Set(this.refusedTemporalCalls)].join(', ')}), which the db tier does not start: ` +
          'it belongs in test/temporal/ (docs/architecture.md "Tests, in tiers")',
      );
  }
}

/** Where the db tier's harness says Temporal is: nothing listens there, and its connection never dials it. */
const NO_TEMPORAL_ADDRESS = '127.0.0.1:1';

/**
 * The db tier's Temporal (it starts none, jest.config.js): a connection that dials nothing and refuses every call
 * at once, noting the call's name, so Harness.stop fails a file that used Temporal (a job's or a schedule's
 * workflow, a worker, a readiness check) instead of letting it wait for a server.
 */
function refusingTemporal(refused: string[]): Connection {
  const refuse: Interceptor = (options, nextCall) =>
    new InterceptingCall(nextCall(options), {
      start(_metadata, listener) {
        refused.push(options.method_definition.path.split('/').pop()!);
        setImmediate(() =>
          listener.onReceiveStatus({
            code: status.FAILED_PRECONDITION,
            details: 'the db tier starts no Temporal',
            metadata: new Metadata(),
          }),
        );
      },
      sendMessage() {},
      halfClose() {},
      cancel() {},
    });
  // Not TemporalConnection.open, which dials the server: with no retry interceptor there are no retries for a close to end.
  // eslint-disable-next-line no-restricted-properties
  return Connection.lazy({ address: NO_TEMPORAL_ADDRESS, interceptors: [refuse] });
}
