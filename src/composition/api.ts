import type { Server } from 'node:http';
import type Koa from 'koa';
import type Router from '@koa/router';
import type { JobFinalListener } from '../db/job-final-listener';
import type { JobGateway } from '../domain/ports';
import { verifierFromConfig, type TokenVerifier } from '../auth/verifier';
import { createHttpServer } from '../http/server';
import { drainServer } from '../http/drain';
import type { ServingState } from '../http/serving-state';
import { jobGatewayFor } from '../temporal/job-gateway';
import { watchTemporalFairness, type TemporalFairnessWatch } from '../temporal/fairness-probe';
import { builtinImplementations } from '../../activities/in-process/registry';
import { createApp, type AppDeps } from './app';
import type { Resources } from './resources';

export interface ApiOptions {
  /** How bearer tokens are checked; as AUTH_* configure it when omitted. */
  verify?: TokenVerifier;
  /** The job gateway; one over `temporal` as the config says when omitted. */
  gateway?: JobGateway;
  /** Names of the in-process implementations the worker has registered; the built-in ones when omitted. */
  inProcessNames?: string[];
  /** The operator console: where its build is, and a dev admin token to offer (`npm start`, tests). */
  console?: AppDeps['console'];
  /** Middleware run before all of the app's own (the tests' contract check), outermost first. */
  outerMiddleware?: Koa.Middleware[];
  /**
   * How `close` stops the HTTP server: drained (readiness 503 for SHUTDOWN_DELAY_SECONDS, then in-flight requests get
   * SHUTDOWN_TIMEOUT_SECONDS; src/http/drain.ts), as the production API does; closed at once when false.
   */
  drain?: boolean;
}

export interface ApiParts {
  app: Koa;
  /** The app's router, so tests can walk every declared route. */
  router: Router;
  gateway: JobGateway;
  serving: ServingState;
  /** Wakes `?wait=` reads; tests ask it whether a read is held. */
  finals: Pick<JobFinalListener, 'held'>;
  /** What the probe of Temporal's task-queue fairness saw (TEMPORAL_FAIRNESS_PROBE=off: none). */
  temporalFairness?: TemporalFairnessWatch;
  /** Serves the app (with the HTTP limits of the config) on this port; resolves once it listens. Once. */
  listen(port: number, host?: string): Promise<Server>;
  /**
   * The API's shutdown, in order: the job starts under way settle and held `?wait=` reads answer the job as it is now
   * (so they do not hold up the drain), then the server stops (drained or closed). The resources are the caller's.
   */
  close(): Promise<void>;
}

/** The API: the app with its services, the job gateway and the token verifier, and its HTTP server. */
export function composeApi(deps: Resources & ApiOptions): ApiParts {
  const { config, knex, temporal, log, metrics } = deps;
  const gateway = deps.gateway ?? jobGatewayFor(temporal, config, metrics);
  const fairness = config.temporal.fairnessProbe
    ? watchTemporalFairness({ client: temporal, namespace: config.temporal.namespace, log, metrics })
    : undefined;
  const built = createApp({
    config,
    knex,
    temporal,
    gateway,
    verify: deps.verify ?? verifierFromConfig(config.auth, log),
    log,
    metrics,
    inProcessNames: deps.inProcessNames ?? Object.keys(builtinImplementations),
    console: deps.console,
    temporalFairness: fairness?.describe,
  });
  const { app, serving } = built;
  app.middleware.unshift(...(deps.outerMiddleware ?? []));
  let server: Server | undefined;
  return {
    app,
    router: built.router,
    gateway,
    serving,
    finals: built.finals,
    temporalFairness: fairness,
    async listen(port, host) {
      if (server) throw new Error('the API is already listening');
      const listening = createHttpServer(app, config.http);
      server = listening;
      await new Promise<void>((resolve, reject) => {
        listening.once('error', reject);
        listening.listen(port, host, () => {
          listening.off('error', reject);
          resolve();
        });
      });
      return listening;
    },
    async close() {
      await built.close();
      await fairness?.stop();
      if (!server) return;
      const s = server;
      if (deps.drain) {
        const { delaySeconds, timeoutSeconds } = config.shutdown;
        await drainServer(s, serving, { delayMs: delaySeconds * 1000, timeoutMs: timeoutSeconds * 1000, log });
      } else {
        await new Promise((r) => s.close(r));
      }
    },
  };
}
