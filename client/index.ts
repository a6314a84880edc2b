import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
// The extension keeps it valid in ES modules under `module: nodenext` (it resolves to schema.d.ts there and here).
import type { paths, components } from './schema.js';

export type { paths, components };
/** The component schemas of the API, as TypeScript types: `Schemas['ModelJob']`, `Schemas['Service']`... */
export type Schemas = components['schemas'];
export type ApiClient = Client<paths>;

export interface ApiClientOptions extends Omit<ClientOptions, 'baseUrl'> {
  /** Where the API runs, e.g. `http://localhost:8080` (no trailing `/v2`: paths carry it). */
  baseUrl: string;
  /** A bearer token, or a function returning a fresh one for every request. */
  token?: string | (() => string | Promise<string>);
}

/**
 * A typed client of the Model Orchestration API: every path, parameter, body and response type comes from
 * the OpenAPI document (`client/openapi.json`); client/README.md says which mistakes still compile.
 */
export function createApiClient({ token, ...options }: ApiClientOptions): ApiClient {
  const client = createClient<paths>(options);
  if (token !== undefined) {
    client.use({
      async onRequest({ request }) {
        request.headers.set('Authorization', `Bearer ${typeof token === 'function' ? await token() : token}`);
        return request;
      },
    });
  }
  return client;
}
