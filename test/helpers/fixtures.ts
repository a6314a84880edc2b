import type { Harness } from './harness';
import { uid } from './harness';

export const FEATURES = [
  { name: 'seats', json_schema: { type: 'integer', minimum: 1, maximum: 500 }, mandatory: true },
  { name: 'cabin', json_schema: { type: 'string', enum: ['economy', 'business'], default: 'economy' }, mandatory: true },
  { name: 'tags', json_schema: { type: 'array', items: { type: 'string' }, maxItems: 3, default: [] }, mandatory: false },
];

export const ECHO_HANDLERS = { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: 'echo' } };

function expectStatus(res: { status: number; body: unknown }, status: number, what: string) {
  if (res.status !== status) throw new Error(`${what}: expected ${status}, got ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as any;
}

/** Registers a model and makes its first version active. */
export async function activeModel(
  h: Harness,
  options: { features?: unknown[]; handlers?: unknown; handler_contracts?: unknown; id?: string } = {},
) {
  const id = options.id ?? uid('model');
  expectStatus(
    await h.api('POST', '/v2/models', {
      body: {
        id,
        name: id,
        description: 'test model',
        metadata: {},
        handlers: options.handlers ?? ECHO_HANDLERS,
        ...(options.handler_contracts ? { handler_contracts: options.handler_contracts } : {}),
        features: options.features ?? FEATURES,
      },
    }),
    201,
    'create model',
  );
  expectStatus(await h.api('PUT', `/v2/models/${id}/versions/1/new_status`, { body: { status: 'active' } }), 200, 'activate version');
  return id;
}

export async function addVersion(h: Harness, modelId: string, version: string, features: unknown[], activate = true) {
  expectStatus(await h.api('POST', `/v2/models/${modelId}/versions`, { body: { version, features } }), 201, 'create version');
  if (activate)
    expectStatus(
      await h.api('PUT', `/v2/models/${modelId}/versions/${version}/new_status`, { body: { status: 'active' } }),
      200,
      'activate',
    );
}

/** A tenant with one domain, optionally active and with a default assignment to `modelId`. */
export async function tenantWithDomain(
  h: Harness,
  options: { features?: unknown[]; active?: boolean; modelId?: string; clientId?: string } = {},
) {
  const clientId = options.clientId ?? uid('client');
  const domainId = uid('domain');
  // A named tenant may hold several domains: created once, then updated.
  const upsert = await h.api('PUT', `/v2/clients/${clientId}`, { body: { name: clientId } });
  expectStatus(upsert, options.clientId && upsert.status === 200 ? 200 : 201, 'create client');
  expectStatus(
    await h.api('POST', `/v2/clients/${clientId}/domains`, { body: { domain_id: domainId, features: options.features ?? FEATURES } }),
    201,
    'create domain',
  );
  if (options.active ?? true) {
    expectStatus(
      await h.api('PUT', `/v2/clients/${clientId}/domains/${domainId}/new_status`, { body: { status: 'active' } }),
      200,
      'activate domain',
    );
  }
  if (options.modelId) {
    expectStatus(
      await h.api('POST', `/v2/clients/${clientId}/domains/${domainId}/model/assign`, { body: { model_id: options.modelId } }),
      200,
      'assign model',
    );
  }
  return { clientId, domainId, base: `/v2/clients/${clientId}/domains/${domainId}` };
}

export async function initService(
  h: Harness,
  base: string,
  serviceId: string,
  staticFeatures: Record<string, unknown>,
  departure = new Date(Date.now() + 86400000).toISOString(),
) {
  return h.api('POST', `${base}/service/init`, {
    body: { service_id: serviceId, departure_datetime: departure, static_features: staticFeatures },
  });
}

/** Polls until `fn` returns a truthy value or the time runs out. */
export async function eventually<T>(fn: () => Promise<T | undefined | false>, timeoutMs = 20000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
