/**
 * Limits on JSON input that the schemas cannot express: nesting depth (deep values overflow the stack of
 * JSON.stringify and of Postgres' jsonb), and text Postgres cannot store (NUL in text or jsonb) or that is
 * not Unicode (lone surrogates). Checked at the edge, before any query, naming the field.
 */
export const MAX_JSON_DEPTH = 64;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** What is wrong with a string, if anything. */
export function textProblem(text: string): string | undefined {
  if (text.includes('\u0000')) return 'contains a NUL character (\\u0000)';
  if (LONE_SURROGATE.test(text)) return 'contains a lone surrogate (not valid Unicode)';
  return undefined;
}

/** JSON Pointer segment (RFC 6901), shortened so a hostile key cannot flood the message. */
function segment(key: string | number): string {
  const text = String(key).replace(/~/g, '~0').replace(/\//g, '~1');
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/**
 * The first problem in a parsed JSON value, with the JSON Pointer of the field ("/metadata/note"), or undefined.
 * Walks with an explicit stack, so the walk itself cannot overflow on deep input.
 */
export function jsonProblem(value: unknown, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  while (stack.length) {
    const { value: v, path, depth } = stack.pop()!;
    if (typeof v === 'string') {
      const problem = textProblem(v);
      if (problem) return `${path || '/'} ${problem}`;
    } else if (v !== null && typeof v === 'object') {
      if (depth >= maxDepth) return `${path.slice(0, 120)}${path.length > 120 ? '…' : ''} is nested deeper than ${maxDepth} levels`;
      const entries: Array<[string | number, unknown]> = Array.isArray(v) ? v.map((item, i) => [i, item]) : Object.entries(v);
      for (const [key, item] of entries) {
        const itemPath = `${path}/${segment(key)}`;
        if (typeof key === 'string') {
          const problem = textProblem(key);
          if (problem) return `${itemPath} (a key) ${problem}`;
        }
        stack.push({ value: item, path: itemPath, depth: depth + 1 });
      }
    }
  }
  return undefined;
}
