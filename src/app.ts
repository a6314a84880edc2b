import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Client } from '@temporalio/client';
import type { Config } from './config';
import type { TokenVerifier } from './auth/verifier';
import type { JobLauncher } from './temporal/job-launcher';
import { errorMiddleware } from './http/error-middleware';
import { InvalidInputError } from './errors';
import { requestContext, requireJsonBody, guardInput } from './http/request-context';
import { RequestValidator } from './http/request-validator';
import { createRouteRegistrar, notFoundOrMethodNotAllowed } from './http/routing';
import { buildOpenApiDocument } from './openapi/document';
import { UserSchemaCompiler } from './domain/json-schemas';
import { FeatureRules } from './domain/features';
import { createClientsService } from './domain/clients';
import { createDomainsService } from './domain/domains';
import { createModelsService } from './domain/models';
import { createAssignmentsService } from './domain/assignments';
import { createServicesService } from './domain/services';
import { createJobsService } from './domain/jobs';
import { createJobStarts } from './domain/job-starts';
import { createSubscriptionsService } from './domain/subscriptions';
import { registerHealthRoutes } from './routes/health.routes';
import { registerClientRoutes } from './routes/clients.routes';
import { registerDomainRoutes } from './routes/domains.routes';
import { registerAssignmentRoutes } from './routes/assignments.routes';
import { registerServiceRoutes } from './routes/services.routes';
import { registerModelRoutes } from './routes/models.routes';
import { registerJobRoutes } from './routes/jobs.routes';
import { registerSubscriptionRoutes } from './routes/subscriptions.routes';
import { registerDocsRoutes } from './routes/docs.routes';

export interface AppDeps {
  config: Config;
  knex: Knex;
  temporal: Client;
  launcher: JobLauncher;
  verify: TokenVerifier;
  log: Logger;
  /** Names of the in-process implementations the worker has registered. */
  inProcessNames: string[];
}

/** Builds the Koa app from its dependencies; nothing here is global, so tests build it against real services. */
export function createApp(deps: AppDeps): { app: Koa; router: Router } {
  const { knex, log } = deps;
  const schemas = new UserSchemaCompiler();
  const rules = new FeatureRules(schemas);
  const jobs = createJobsService({ knex, temporal: deps.temporal, launcher: deps.launcher, schemas, log, completionWaitSeconds: deps.config.jobs.completionWaitSeconds });
  const assignments = createAssignmentsService({ knex, rules });
  const starts = createJobStarts({ knex, jobs });

  const router = new Router();
  const route = createRouteRegistrar(router, { validator: new RequestValidator(), verify: deps.verify, auth: deps.config.auth });
  registerDocsRoutes(router, buildOpenApiDocument());
  registerHealthRoutes(route, { knex, temporal: deps.temporal });
  registerClientRoutes(route, createClientsService(knex));
  registerDomainRoutes(route, createDomainsService({ knex, rules }), assignments);
  registerAssignmentRoutes(route, assignments, starts);
  registerServiceRoutes(route, createServicesService({ knex, rules, jobs }));
  registerModelRoutes(route, createModelsService({ knex, rules, schemas, inProcessNames: () => deps.inProcessNames }));
  registerJobRoutes(route, jobs, starts);
  registerSubscriptionRoutes(route, createSubscriptionsService({ knex, schemas }));

  const app = new Koa();
  app.proxy = true;
  app.silent = true;
  app.use(requestContext(log));
  app.use(errorMiddleware());
  app.use(requireJsonBody());
  app.use(koaBody({
    json: true, jsonStrict: true, jsonLimit: '1mb', multipart: false, urlencoded: false, text: false,
    onError: (err) => {
      const status = (err as { status?: number }).status;
      if (status === 413) throw new InvalidInputError('request body exceeds 1 MB');
      throw new InvalidInputError(`request body is not valid JSON: ${err.message}`);
    },
  }));
  app.use(guardInput());
  app.use(router.routes());
  app.use(notFoundOrMethodNotAllowed());
  return { app, router };
}
