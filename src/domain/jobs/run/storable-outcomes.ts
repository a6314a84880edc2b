import type { CompletionReport } from '../../../../workflows/definitions';

/**
 * What a job's record can hold. Postgres' jsonb refuses a NUL character and a lone surrogate, and deep values
 * overflow the stack of JSON.stringify and of jsonb itself; an outcome outside these bounds fails its job with the
 * reason `output_unstorable` instead of failing the step that records it (docs/jobs.md, "Outcomes the service stores").
 */
/** Nesting levels of an output (the request bodies' limit, src/http/json-guard.ts). */
export const MAX_OUTPUT_DEPTH = 64;
/** JSON values (objects, arrays, strings, numbers, booleans, nulls) in one output. */
export const MAX_OUTPUT_VALUES = 100_000;
/** An output's size as JSON text (a sync `http` answer's limit, and the completion route's body limit). */
export const MAX_OUTPUT_BYTES = 1024 * 1024;
/** Characters of an error message; a longer one is cut on a code point. */
export const MAX_ERROR_MESSAGE_CHARS = 1000;
/** The reason a job fails with when its reported outcome cannot be stored as given. */
export const OUTPUT_UNSTORABLE = 'output_unstorable';

const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const LONE_SURROGATE = new RegExp(LONE_SURROGATES.source);
const PLAIN_KEY = /^[A-Za-z_$][\w$]*$/;
const MAX_PATH_CHARS = 120;

function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'a NUL character';
  if (LONE_SURROGATE.test(text)) return 'a lone surrogate (not valid Unicode)';
  return undefined;
}

/** `$.a.b[3]["odd key"]`, shortened so a hostile key cannot flood the message; keys are made storable first. */
function pathOf(parent: string, key: string | number): string {
  if (typeof key === 'number') return `${parent}[${key}]`;
  const safe = storableText(key, 40);
  return PLAIN_KEY.test(safe) ? `${parent}.${safe}` : `${parent}[${JSON.stringify(safe)}]`;
}

const shown = (path: string) => (path.length > MAX_PATH_CHARS ? `${path.slice(0, MAX_PATH_CHARS)}…` : path);

/**
 * Why `value` cannot be stored as a job's output or error (e.g. "output holds a NUL character at $.a.b"), or
 * undefined. Walks with an explicit stack and stops at the first problem, so the check cannot overflow on a deep or
 * cyclic value and costs at most MAX_OUTPUT_VALUES steps before the size is measured.
 */
export function unstorableReason(value: unknown, what = 'output'): string | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '$', depth: 0 }];
  let values = 0;
  while (stack.length) {
    const { value: v, path, depth } = stack.pop()!;
    if (++values > MAX_OUTPUT_VALUES) return `${what} holds more than ${MAX_OUTPUT_VALUES} values`;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return `${what} holds ${problem} at ${shown(path)}`;
    } else if (typeof v === 'bigint' || typeof v === 'function' || typeof v === 'symbol') {
      return `${what} holds a ${typeof v}, which JSON cannot carry, at ${shown(path)}`;
    } else if (v !== null && typeof v === 'object') {
      if (depth >= MAX_OUTPUT_DEPTH) return `${what} is nested deeper than ${MAX_OUTPUT_DEPTH} levels at ${shown(path)}`;
      if (Array.isArray(v)) {
        if (values + v.length > MAX_OUTPUT_VALUES)
          return `${what} holds more than ${MAX_OUTPUT_VALUES} values (an array of ${v.length} at ${shown(path)})`;
        v.forEach((item, i) => stack.push({ value: item, path: pathOf(path, i), depth: depth + 1 }));
      } else {
        for (const [key, item] of Object.entries(v)) {
          const problem = textProblem(key);
          if (problem) return `${what} holds ${problem} in a key at ${shown(pathOf(path, key))}`;
          stack.push({ value: item, path: pathOf(path, key), depth: depth + 1 });
        }
      }
    }
  }
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(value) ?? '');
  } catch (err) {
    return `${what} cannot be written as JSON: ${storableText((err as Error).message ?? String(err), 200)}`;
  }
  return bytes > MAX_OUTPUT_BYTES ? `${what} is ${bytes} bytes as JSON, over the limit of ${MAX_OUTPUT_BYTES}` : undefined;
}

/**
 * Text made storable: NUL replaced by U+FFFD, cut to `maxChars` UTF-16 units and then stripped of lone surrogates, so
 * a cut through a character (an emoji's pair) drops the half rather than storing it.
 */
export function storableText(text: string, maxChars = MAX_ERROR_MESSAGE_CHARS): string {
  return text.replaceAll('\u0000', '\uFFFD').slice(0, maxChars).replace(LONE_SURROGATES, '');
}

/** The error a job fails with when its outcome cannot be stored as reported. */
export function unstorableError(reason: string): { message: string; reason: string } {
  return { message: storableText(reason), reason: OUTPUT_UNSTORABLE };
}

/**
 * An error object made storable: kept as given when it is (its message cut to MAX_ERROR_MESSAGE_CHARS), else its
 * `message` and `reason` made storable and the rest dropped, naming why.
 */
export function storableError(error: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (error === undefined) return undefined;
  const message = typeof error.message === 'string' ? storableText(error.message) : undefined;
  const given = message === undefined ? error : { ...error, message };
  const problem = unstorableReason(given, 'error');
  if (!problem) return given;
  return {
    message: message ?? 'the handler reported a failure',
    ...(typeof error.reason === 'string' ? { reason: storableText(error.reason, 200) } : {}),
    detail_dropped: problem,
  };
}

/**
 * A report as the job's record can hold it: a success whose output cannot be stored becomes a failure naming why
 * (`output_unstorable`); a failure's error is made storable. Reports that are storable come back as they are.
 */
export function storableReport(report: CompletionReport): CompletionReport {
  if (report.status === 'success') {
    const problem = unstorableReason(report.output ?? {});
    return problem ? { status: 'failure', error: unstorableError(problem) } : report;
  }
  const error = storableError(report.error);
  return error === report.error ? report : { ...report, error };
}
