import { writeFileSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, parseMachineClients, ConfigError } from '../../../src/config';
import { canMoveVersion } from '../../../src/domain/common/version-status';
import { canMoveService } from '../../../src/domain/services/service-status';
import { staleningChange } from '../../../src/domain/models/models.service';
import { canonicalJson } from '../../../src/domain/common/json-schemas';
import { uuidv7, deterministicUuid } from '../../../src/ids';
import type { ModelRow } from '../../../src/db/models.repository';

describe('configuration', () => {
  it('applies defaults', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({
      port: 8080,
      temporal: { namespace: 'default', taskQueue: 'model-jobs' },
      auth: { scopePrefix: 'platform/', groupsClaim: 'idp:groups', machineClients: {} },
    });
  });

  it('names the variable at fault', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ AUTH_JWKS_URL: 'not a url' })).toThrow(/AUTH_JWKS_URL/);
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(/LOG_LEVEL/);
    expect(() => parseMachineClients('{"x":{"access":"root"}}')).toThrow(ConfigError);
    expect(() => parseMachineClients('/nonexistent/clients.json')).toThrow(/MACHINE_CLIENTS/);
    expect(() => loadConfig({ WORKER_METRICS_PORT: '70000' })).toThrow(/WORKER_METRICS_PORT/);
    expect(() => loadConfig({ SHUTDOWN_TIMEOUT_SECONDS: '-1' })).toThrow(/SHUTDOWN_TIMEOUT_SECONDS/);
  });

  it('reads the drain and metrics settings: no worker metrics unless asked, the SDK exporter on the next port', () => {
    expect(loadConfig({})).toMatchObject({
      shutdown: { delaySeconds: 0, timeoutSeconds: 25, workerGraceSeconds: 20 },
      workerMetrics: { port: undefined, sdkPort: undefined },
    });
    expect(loadConfig({ WORKER_METRICS_PORT: '9464' }).workerMetrics).toEqual({ port: 9464, sdkPort: 9465 });
    expect(loadConfig({ WORKER_METRICS_PORT: '9464', WORKER_SDK_METRICS_PORT: '9600', SHUTDOWN_DELAY_SECONDS: '5' })).toMatchObject({
      workerMetrics: { sdkPort: 9600 },
      shutdown: { delaySeconds: 5 },
    });
  });
});

describe('status transitions', () => {
  it('follows the version table', () => {
    expect(canMoveVersion('pending', 'active')).toBe(true);
    expect(canMoveVersion('pending', 'training')).toBe(false);
    expect(canMoveVersion('active', 'pending')).toBe(false);
    expect(canMoveVersion('training', 'failed')).toBe(true);
    expect(canMoveVersion('active', 'active')).toBe(true);
  });

  it('follows the service table', () => {
    expect(canMoveService('in_progress', 'available')).toBe(true);
    expect(canMoveService('available', 'in_progress')).toBe(false);
    expect(canMoveService('not_found', 'available')).toBe(false);
    expect(canMoveService('failed', 'available')).toBe(true);
  });
});

describe('subscription staleness', () => {
  const model = (contracts: ModelRow['handler_contracts']) =>
    ({
      handlers: { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'echo' } },
      handler_contracts: contracts,
    }) as unknown as ModelRow;

  it('follows handler changes when no contracts are set', () => {
    expect(
      staleningChange(model(null), {
        handlers: { training: { type: 'in_process', name: 'echo' }, inference: { type: 'lambda', arn: 'f' } },
      }),
    ).toBe(true);
    expect(staleningChange(model(null), { description: 'x' })).toBe(false);
  });

  it('follows contract changes when contracts are set', () => {
    const contracts = { inference: { input_schema: { type: 'object' } } };
    expect(
      staleningChange(model(contracts), { handlers: { training: { type: 'lambda', arn: 'g' }, inference: { type: 'lambda', arn: 'f' } } }),
    ).toBe(false);
    expect(
      staleningChange(model(contracts), { handler_contracts: { inference: { input_schema: { type: 'object', required: ['a'] } } } }),
    ).toBe(true);
    expect(staleningChange(model(contracts), { handler_contracts: { inference: { input_schema: { type: 'object' } } } })).toBe(false);
  });
});

describe('identifiers and canonical JSON', () => {
  it('makes time-ordered UUIDv7s', () => {
    const a = uuidv7({ msecs: 1000 });
    const b = uuidv7({ msecs: 2000 });
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
    expect(a < b).toBe(true);
  });

  it('derives the same cascade id from the same inputs only', () => {
    expect(deterministicUuid('a', 'b')).toBe(deterministicUuid('a', 'b'));
    expect(deterministicUuid('a', 'b')).not.toBe(deterministicUuid('ab', ''));
  });

  it('sorts keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { f: 1, e: 0 }], c: null } })).toBe('{"a":{"c":null,"d":[2,{"e":0,"f":1}]},"b":1}');
  });
});

describe('MACHINE_CLIENTS from a file', () => {
  it('reads the JSON file a path names', () => {
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'mos-')), 'clients.json');
    writeFileSync(file, JSON.stringify({ acme: { access: 'tenant', tenants: ['acme'] } }));
    expect(parseMachineClients(file)).toEqual({ acme: { access: 'tenant', tenants: ['acme'] } });
  });
});
