import type { Operation } from './operations';
import { parameters } from './shared-components';

/**
 * The query parameters of an operation by name, as the document lists them: the table's own, then the shared
 * page parameters of a paginated list (the document refers to the same `parameters` components).
 */
export function querySchemas(op: Operation): Record<string, object> {
  const page = op.paginated ? { [parameters.Limit.name]: parameters.Limit.schema, [parameters.Cursor.name]: parameters.Cursor.schema } : {};
  return { ...op.query, ...page };
}
