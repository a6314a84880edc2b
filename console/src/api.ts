import { createApiClient, type ApiClient } from '../../client';
import { ApiError, describeFailure } from './errors';

/**
 * The typed client of client/ on this origin, with the session's token. A 401 calls `onUnauthorized`, which sends
 * the user back to sign-in on the same page.
 */
export function createConsoleApi(token: () => string, onUnauthorized: () => void): ApiClient {
  const api = createApiClient({ baseUrl: window.location.origin, token });
  api.use({
    onResponse({ response }) {
      if (response.status === 401) onUnauthorized();
      return response;
    },
  });
  return api;
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a typed call, or an ApiError with a readable message (TanStack Query shows it). */
export async function ok<T>(call: Promise<Answer<T>>): Promise<T> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (err) {
    throw new ApiError(0, `The API could not be reached (${err instanceof Error ? err.message : String(err)}).`, undefined);
  }
  const { data, error, response } = answer;
  if (!response.ok || error !== undefined) {
    throw new ApiError(response.status, describeFailure(response.status, error, response.headers.get('Retry-After')), error);
  }
  return data as T;
}
