/** An API answer other than 2xx, with the words a person reads. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The error body as the API sent it (ErrorResponse or AssignBlockedErrorResponse). */
    readonly body: unknown,
  ) {
    super(message);
  }
}

const PREFIX: Record<number, string> = {
  400: 'The request was refused',
  401: 'Your sign-in is no longer accepted; sign in again',
  403: 'This token may not do that',
  404: 'Not found',
  409: 'Conflict with the current state',
  422: 'The change was refused',
  429: 'Too many requests',
  503: 'The service is unavailable for the moment',
};

function apiMessage(body: unknown): string | undefined {
  if (body && typeof body === 'object') {
    const { message, error } = body as { message?: unknown; error?: unknown };
    if (typeof message === 'string') return message;
    if (typeof error === 'string') return error;
  }
  return undefined;
}

/** A readable sentence for any failed answer: what kind of failure, the API's own words, and when to retry. */
export function describeFailure(status: number, body: unknown, retryAfter?: string | null): string {
  const prefix = PREFIX[status] ?? (status >= 500 ? 'The service failed' : `The API answered ${status}`);
  const detail = apiMessage(body);
  const retry = retryAfter && (status === 429 || status === 503) ? ` Try again in ${retryAfter} s.` : '';
  return `${prefix}${detail ? `: ${detail}` : ''}.${retry}`;
}

/** The services that block a change, from a 422 AssignBlockedErrorResponse. */
export function blockingServicesOf(err: unknown): { service_id: string; feature?: string; value?: unknown }[] {
  if (!(err instanceof ApiError) || !err.body || typeof err.body !== 'object') return [];
  const list = (err.body as { blocking_services?: unknown }).blocking_services;
  return Array.isArray(list) ? (list as { service_id: string; feature?: string; value?: unknown }[]) : [];
}
