import { loadConfig, parseMachineClients } from '../../../src/config';

describe('the settings as their schema reads them', () => {
  it('says what each kind of variable must be, with the value it got', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow('PORT must be an integer >= 0, got "eighty"');
    expect(() => loadConfig({ DATABASE_POOL_MAX: '2.5' })).toThrow('DATABASE_POOL_MAX must be an integer >= 1, got "2.5"');
    expect(() => loadConfig({ WORKER_METRICS_PORT: '70000' })).toThrow('WORKER_METRICS_PORT must be a port (1-65535), got "70000"');
    expect(() => loadConfig({ TENANT_JOBS_PER_SECOND: '-1' })).toThrow('TENANT_JOBS_PER_SECOND must be a number >= 0, got "-1"');
    expect(() => loadConfig({ JOB_FAIRNESS: 'yes' })).toThrow('JOB_FAIRNESS must be on or off, got "yes"');
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent; got "loud"',
    );
    expect(() => loadConfig({ AUTH_JWKS_URL: 'not a url' })).toThrow('AUTH_JWKS_URL must be a URL, got "not a url"');
  });

  it('names every variable at fault at once', () => {
    expect(() => loadConfig({ PORT: 'x', SHUTDOWN_TIMEOUT_SECONDS: '-1' })).toThrow(
      'PORT must be an integer >= 0, got "x"; SHUTDOWN_TIMEOUT_SECONDS must be an integer >= 0, got "-1"',
    );
  });

  it('takes an empty variable as unset, except the scope prefix, where empty means none', () => {
    expect(loadConfig({ PORT: '', TEMPORAL_NAMESPACE: '' })).toMatchObject({ port: 8080, temporal: { namespace: 'default' } });
    expect(loadConfig({ AUTH_SCOPE_PREFIX: '' }).auth.scopePrefix).toBe('');
  });

  it('fills defaults that follow other settings', () => {
    expect(loadConfig({ PORT: '9000' }).publicBaseUrl).toBe('http://localhost:9000');
    expect(loadConfig({ DATABASE_POOL_MAX: '7' }).requests.seats).toBe(7);
    expect(loadConfig({ TEMPORAL_ADDRESS: 'ns.acct.tmprl.cloud:7233' }).temporal.registerSearchAttributes).toBe(false);
    expect(loadConfig({}).temporal.registerSearchAttributes).toBe(true);
  });

  it('needs the console client id with the console issuer', () => {
    expect(() => loadConfig({ CONSOLE_OIDC_ISSUER: 'https://idp.example.test/' })).toThrow(
      'CONSOLE_OIDC_CLIENT_ID must be set with CONSOLE_OIDC_ISSUER',
    );
    expect(loadConfig({ CONSOLE_OIDC_ISSUER: 'https://idp.example.test/', CONSOLE_OIDC_CLIENT_ID: 'console' }).consoleOidc).toEqual({
      issuer: 'https://idp.example.test',
      clientId: 'console',
      scope: 'openid',
    });
  });

  it('refuses the headers timeout past the request timeout', () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_SECONDS: '40' })).toThrow(
      'HTTP_HEADERS_TIMEOUT_SECONDS must not exceed HTTP_REQUEST_TIMEOUT_SECONDS',
    );
  });
});

describe('MACHINE_CLIENTS as its schema reads it', () => {
  it('names the entry and the field at fault', () => {
    expect(() => parseMachineClients('{"x":{"access":"root"}}')).toThrow('MACHINE_CLIENTS["x"].access must be "platform" or "tenant"');
    expect(() => parseMachineClients('{"x":{}}')).toThrow('MACHINE_CLIENTS["x"].access must be "platform" or "tenant"');
    expect(() => parseMachineClients('{"x":null}')).toThrow('MACHINE_CLIENTS["x"].access must be "platform" or "tenant"');
    expect(() => parseMachineClients('{"x":{"access":"tenant","tenants":[1]}}')).toThrow(
      'MACHINE_CLIENTS["x"].tenants must be an array of strings',
    );
  });

  it('gives a client without tenants none', () => {
    expect(parseMachineClients('{"ops":{"access":"platform"}}')).toEqual({ ops: { access: 'platform', tenants: [] } });
  });
});
