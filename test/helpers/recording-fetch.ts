import { OPERATIONS, koaPath } from '../../src/openapi/operations';

export type RecordedExamples = Record<string, { request?: unknown; responses: Record<string, unknown> }>;

const matchers = OPERATIONS.map((op) => ({ op, regex: new RegExp(`^${koaPath(op.path).replace(/:[a-z_]+/g, '[^/]+')}$`) }));

/**
 * A fetch that keeps, per operation, the first request body and the first body of each success status it sees:
 * real payloads of the running service, to become the document's examples.
 */
export function recordingFetch(recorded: RecordedExamples): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const requestBody = request.body ? await request.clone().text() : undefined;
    const response = await fetch(request);
    const { pathname } = new URL(request.url);
    const op = matchers.find((m) => m.op.method === request.method && m.regex.test(pathname))?.op;
    if (op && response.status < 300) {
      const entry = (recorded[op.id] ??= { responses: {} });
      if (requestBody && entry.request === undefined) entry.request = JSON.parse(requestBody);
      entry.responses[response.status] ??= await response.clone().json();
    }
    return response;
  };
}

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIMESTAMP = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;

/**
 * Makes recorded examples the same on every run: ids the service generates become fixed UUIDs in order of
 * first appearance, and times of the run become one fixed time. Times far from now (a departure the test
 * chose) are kept.
 */
export function stableExamples(recorded: RecordedExamples, now = Date.now()): RecordedExamples {
  const ordered = Object.fromEntries(
    Object.keys(recorded)
      .sort()
      .map((k) => [k, recorded[k]]),
  );
  const ids = new Map<string, string>();
  const text = JSON.stringify(ordered, null, 2)
    .replace(UUID, (id) => {
      if (!ids.has(id)) ids.set(id, `0197a000-0000-7000-8000-${String(ids.size + 1).padStart(12, '0')}`);
      return ids.get(id)!;
    })
    .replace(TIMESTAMP, (at) => (Math.abs(Date.parse(at) - now) < 86400000 ? '2025-06-02T09:00:00.000Z' : at))
    // Webhooks: the random signing secrets, the measured latencies, and the local receiver's address and port.
    .replace(/whsec_[A-Za-z0-9+/=]+/g, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw0TRCqQ7vRRk=')
    .replace(/"(last_)?latency_ms": \d+/g, '"$1latency_ms": 37')
    .replace(/http:\/\/127\.0\.0\.1:\d+/g, 'https://hooks.example.com');
  return JSON.parse(text);
}
