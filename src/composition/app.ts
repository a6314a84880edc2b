import path from 'node:path';
import Koa from 'koa';
import type { Client } from '@temporalio/client';
import '../http/koa-state';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Config } from '../config';
import type { TokenVerifier } from '../auth/verifier';
import { createJobTokens } from '../auth/job-tokens';
import type { JobGateway } from '../domain/ports';
import { errorMiddleware } from '../http/error-middleware';
import { InvalidInputError, PayloadTooLargeError } from '../errors';
import { requestContext, requireJsonBody, guardInput } from '../http/request-context';
import { RequestValidator } from '../http/request-validator';
import { createRouteRegistrar, notFoundOrMethodNotAllowed, methodsOf } from '../http/routing';
import { cors } from '../http/cors';
import { fairQueuing } from '../http/fair-queuing';
import { buildOpenApiDocument } from '../openapi/document';
import { createCompatibility } from '../domain/models';
import { createClientsService } from '../domain/tenants';
import { createDomainsService } from '../domain/domains';
import { createModelsService } from '../domain/models';
import { createRetirementService } from '../domain/models';
import { createAliasesService } from '../domain/models';
import { createAssignmentsService } from '../domain/assignments';
import { createServicesService } from '../domain/services';
import { createJobsService } from '../domain/jobs';
import { createJobStarts } from '../domain/jobs';
import { createSubscriptionsService, createModelTagsService, createModelSearch } from '../domain/models';
import { registerHealthRoutes } from '../routes/health.routes';
import { createHealthService } from '../domain/health';
import { registerClientRoutes } from '../routes/clients.routes';
import { registerDomainRoutes } from '../routes/domains.routes';
import { registerRolloutRoutes } from '../routes/rollouts.routes';
import { createRolloutsService } from '../domain/assignments';
import { registerAssignmentRoutes } from '../routes/assignments.routes';
import { registerServiceRoutes } from '../routes/services.routes';
import { registerModelRoutes } from '../routes/models.routes';
import { registerModelTagRoutes } from '../routes/model-tags.routes';
import { registerJobRoutes } from '../routes/jobs.routes';
import { registerSubscriptionRoutes } from '../routes/subscriptions.routes';
import { registerWebhookRoutes } from '../routes/webhooks.routes';
import { createWebhooksService } from '../domain/webhooks';
import { createWebhookLauncher } from '../temporal/webhook-launcher';
import { targetPolicy } from '../webhooks/target-policy';
import { registerDocsRoutes } from '../routes/docs.routes';
import { registerConsoleRoutes } from '../routes/console.routes';
import { projectRoot } from '../paths';
import { registerMetricsRoutes } from '../routes/metrics.routes';
import { ServiceMetrics } from '../observability/metrics';
import { poolStats } from '../db/pool-stats';
import { clientStore } from '../db/clients.repository';
import { httpMetrics } from '../http/metrics-middleware';
import { ServingState, closeConnectionsWhileDraining } from '../http/serving-state';
import { traceRequests } from '../http/trace-middleware';
import { createJobFinalListener, type JobFinalListener } from '../db/job-final-listener';
import { registerScheduleRoutes } from '../routes/schedules.routes';
import { createSchedulesService } from '../domain/schedules';
import { createScheduleFires } from '../domain/schedules';
import { scheduleGatewayFor } from '../temporal/schedule-gateway';
import { createJobCore } from './job-core';

export interface AppDeps {
  config: Config;
  knex: Knex;
  gateway: JobGateway;
  /** Starts webhook delivery workflows (pings, redeliveries; src/temporal/webhook-launcher.ts). */
  temporal: Client;
  verify: TokenVerifier;
  log: Logger;
  /** Names of the in-process implementations the worker has registered. */
  inProcessNames: string[];
  /** This process's metrics; a fresh set (with the pool of `knex`) when omitted. */
  metrics?: ServiceMetrics;
  /** Turns the readiness route not-ready once a shutdown starts; a fresh (serving) state when omitted. */
  serving?: ServingState;
  /** Whether Temporal dispatches fairly, for readiness (src/temporal/fairness-probe.ts); not reported when omitted. */
  temporalFairness?: () => string;
  /** The operator console (/console): where its build is (default dist/console), and `npm start`'s dev admin token. */
  console?: { assetsDir?: string; devToken?: string };
}

/** Builds the Koa app from its dependencies; nothing here is global, so tests build it against real services. */
export function createApp(deps: AppDeps): {
  app: Koa;
  router: Router;
  metrics: ServiceMetrics;
  serving: ServingState;
  /** Wakes `?wait=` reads; tests ask it whether a read is held before they finish the job it waits on. */
  finals: Pick<JobFinalListener, 'held'>;
  /** Waits for the job starts still under way, then closes what the app opened itself (the final-status listener of `?wait=` reads); call after the server closed. */
  close: () => Promise<void>;
} {
  const { knex, log } = deps;
  const finals = createJobFinalListener(knex, log);
  const metrics = deps.metrics ?? new ServiceMetrics({ pool: poolStats(knex) });
  const serving = deps.serving ?? new ServingState();
  const core = createJobCore({ config: deps.config, knex, gateway: deps.gateway, log, metrics });
  const services = createApiServices(deps, core, finals, metrics);
  const router = new Router();
  const route = createRouteRegistrar(router, {
    validator: new RequestValidator(),
    verify: deps.verify,
    auth: deps.config.auth,
    jobTokens: createJobTokens(deps.config.jobs.tokenKeys, deps.config.auth.clockSkewSeconds),
    admission: core.admission,
  });
  registerOperatorRoutes(router, route, deps, { metrics, serving });
  registerResourceRoutes(route, deps, core, services);
  const app = koaApp(deps, { metrics, serving, router });
  const close = async () => {
    await services.jobs.settle();
    await finals.close();
  };
  return { app, router, metrics, serving, finals, close };
}

type JobCore = ReturnType<typeof createJobCore>;
type RouteRegistrar = ReturnType<typeof createRouteRegistrar>;

/** The services the job routes and the services' routes share (the jobs service is built once for all of them). */
function createApiServices(deps: AppDeps, core: JobCore, finals: JobFinalListener, metrics: ServiceMetrics) {
  const { knex, log } = deps;
  const { schemas, rules, outbox } = core;
  const jobs = createJobsService({
    knex,
    gateway: deps.gateway,
    schemas,
    log,
    metrics,
    completionWaitSeconds: deps.config.jobs.completionWaitSeconds,
    finals,
    admission: core.admission,
    slots: core.slots,
    fairness: deps.config.jobs.fairness,
    perTenantMetrics: core.perTenantMetrics,
    outbox,
  });
  const compatibility = createCompatibility({ schemas });
  const assignments = createAssignmentsService({ knex, rules, compatibility, outbox });
  const starts = createJobStarts({ knex, jobs, rules, outbox });
  const services = createServicesService({ knex, rules, jobs, outbox });
  return { jobs, compatibility, assignments, starts, services };
}

/** What operators and readers use beside the API's resources: the docs, the console, health and metrics. */
function registerOperatorRoutes(
  router: Router,
  route: RouteRegistrar,
  deps: AppDeps,
  { metrics, serving }: { metrics: ServiceMetrics; serving: ServingState },
) {
  registerDocsRoutes(router, buildOpenApiDocument());
  registerConsoleRoutes(router, {
    assetsDir: deps.console?.assetsDir ?? path.join(projectRoot(), 'dist', 'console'),
    settings: {
      scopePrefix: deps.config.auth.scopePrefix,
      groupsClaim: deps.config.auth.groupsClaim,
      oidc: deps.config.consoleOidc && { ...deps.config.consoleOidc, resource: deps.config.auth.audience },
    },
    devToken: deps.console?.devToken,
  });
  const health = createHealthService({ knex: deps.knex, gateway: deps.gateway, temporalFairness: deps.temporalFairness });
  registerHealthRoutes(route, health, serving);
  registerMetricsRoutes(route, metrics);
}

/** The API's resources, each route file with the service it calls. */
function registerResourceRoutes(
  route: RouteRegistrar,
  deps: AppDeps,
  core: JobCore,
  { jobs, compatibility, assignments, starts, services }: ReturnType<typeof createApiServices>,
) {
  const { knex, log } = deps;
  const { schemas, rules, secrets, outbox } = core;
  registerClientRoutes(route, createClientsService(clientStore(knex), core.defaults));
  registerDomainRoutes(route, createDomainsService({ knex, rules }), assignments);
  registerAssignmentRoutes(route, assignments, starts);
  registerRolloutRoutes(route, createRolloutsService({ knex, rules, assignments, outbox }));
  registerServiceRoutes(route, services);
  const policy = targetPolicy(deps.config.webhooks);
  const inProcessNames = () => deps.inProcessNames;
  const models = createModelsService({ knex, rules, schemas, compatibility, inProcessNames, policy, secrets, outbox });
  registerModelRoutes(route, models, createRetirementService({ knex, outbox }), createAliasesService({ knex, assignments, outbox }));
  registerModelTagRoutes(route, createModelTagsService({ knex }), createModelSearch({ knex }));
  registerJobRoutes(route, jobs, starts);
  registerSubscriptionRoutes(route, createSubscriptionsService({ knex, schemas }));
  const { webhooks } = deps.config;
  const launcher = createWebhookLauncher({ client: deps.temporal, taskQueue: deps.config.temporal.taskQueue, config: webhooks });
  registerWebhookRoutes(
    route,
    createWebhooksService({ knex, log, policy, secretGraceSeconds: webhooks.secretGraceSeconds, secrets, launcher, outbox }),
  );
  // The API writes schedules and previews fires; the worker runs the fires (./job-worker.ts).
  registerScheduleRoutes(
    route,
    createSchedulesService({
      knex,
      log,
      limits: deps.config.schedules,
      gateway: scheduleGatewayFor(deps.temporal, deps.config),
      fires: createScheduleFires({ knex, jobs, services, launch: async () => undefined, gateway: deps.gateway, log, outbox }),
      admission: core.admission,
      outbox,
    }),
  );
}

/** The middleware in the order a request meets it, then the routes. */
function koaApp(deps: AppDeps, { metrics, serving, router }: { metrics: ServiceMetrics; serving: ServingState; router: Router }) {
  const app = new Koa();
  app.proxy = true;
  app.silent = true;
  app.use(traceRequests());
  app.use(requestContext(deps.log));
  // Outside the error middleware, so the series carry the status the client got.
  app.use(httpMetrics(metrics));
  app.use(closeConnectionsWhileDraining(serving));
  app.use(errorMiddleware());
  app.use(cors(deps.config.corsAllowedOrigins, methodsOf));
  // Before the body is read: a request waiting its turn costs no parsing.
  app.use(fairQueuing({ settings: deps.config.requests, verify: deps.verify, auth: deps.config.auth, metrics }));
  app.use(requireJsonBody());
  app.use(
    koaBody({
      json: true,
      jsonStrict: true,
      jsonLimit: '1mb',
      multipart: false,
      urlencoded: false,
      text: false,
      onError: (err) => {
        const status = (err as { status?: number }).status;
        if (status === 413) throw new PayloadTooLargeError('request body exceeds 1 MB');
        throw new InvalidInputError(`request body is not valid JSON: ${err.message}`);
      },
    }),
  );
  app.use(guardInput());
  app.use(router.routes());
  app.use(notFoundOrMethodNotAllowed());
  return app;
}
