import { FeatureDefinition } from '../../src/domain/common';
import { createApiClient } from '../../client';
import type { Service } from './stack';

/** The bench domain's features (also those of the feature-validation figure, feature-rules.ts). */
export const FEATURES: FeatureDefinition[] = [
  { name: 'seats', json_schema: { type: 'integer', minimum: 1, maximum: 900 }, mandatory: true },
  { name: 'cabin', json_schema: { enum: ['economy', 'business', 'first'], default: 'economy' }, mandatory: true },
  { name: 'legs', json_schema: { type: 'array', items: { type: 'string' }, maxItems: 8, default: [] }, mandatory: false },
  { name: 'load', json_schema: { type: 'number', minimum: 0, maximum: 1 }, mandatory: false },
];

/**
 * The rows the rounds use, set up through the typed client of client/, as a consumer would: the `bench-model` (echo,
 * FEATURES), the `manual-0` and `manual-10` models (the latter with 10 subscriptions cascading to `cascade-target`),
 * the `bench` client's domain `d` assigned to `bench-model`, and its service `read-me`, whose init job is returned.
 */
export async function createFixtures({ base, token, departure }: Service) {
  const api = createApiClient({ baseUrl: base, token });
  const ok = async <T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> => {
    const { data, error, response } = await call;
    if (!response.ok) throw new Error(`${response.url}: ${response.status} ${JSON.stringify(error)}`);
    return data as T;
  };
  const model = async (id: string, inference: string, features?: FeatureDefinition[]) => {
    await ok(
      api.POST('/v2/models', {
        body: {
          id,
          name: id,
          description: '',
          metadata: {},
          handlers: { training: { type: 'in_process', name: 'echo' }, inference: { type: 'in_process', name: inference } },
          ...(features ? { features } : {}),
        },
      }),
    );
    await ok(
      api.PUT('/v2/models/{model_id}/versions/{model_version}/new_status', {
        params: { path: { model_id: id, model_version: '1' } },
        body: { status: 'active' },
      }),
    );
  };
  await model('bench-model', 'echo', FEATURES);
  await model('manual-0', 'manual');
  await model('manual-10', 'manual');
  await model('cascade-target', 'echo');
  // Ten subscriptions of one target, a 10-way fan-out: each its own stored input, since an identical second is refused.
  for (let i = 0; i < 10; i++) {
    await ok(
      api.POST('/v2/models/{model_id}/event-subscriptions', {
        params: { path: { model_id: 'manual-10' } },
        body: {
          trigger_event: 'inference_complete',
          target_model_id: 'cascade-target',
          target_action: 'inference',
          input_source: 'stored',
          input: { fan_out: i },
          label: `s${i}`,
        },
      }),
    );
  }
  const bench = { client_id: 'bench' };
  const domain = { ...bench, domain_id: 'd' };
  await ok(api.PUT('/v2/clients/{client_id}', { params: { path: bench }, body: {} }));
  await ok(api.POST('/v2/clients/{client_id}/domains', { params: { path: bench }, body: { domain_id: 'd', features: FEATURES } }));
  await ok(api.PUT('/v2/clients/{client_id}/domains/{domain_id}/new_status', { params: { path: domain }, body: { status: 'active' } }));
  await ok(
    api.POST('/v2/clients/{client_id}/domains/{domain_id}/model/assign', { params: { path: domain }, body: { model_id: 'bench-model' } }),
  );
  const readMe = await ok(
    api.POST('/v2/clients/{client_id}/domains/{domain_id}/service/init', {
      params: { path: domain },
      body: { service_id: 'read-me', departure_datetime: departure, static_features: { seats: 100 } },
    }),
  );
  return { readMeJobId: readMe.job_id };
}
