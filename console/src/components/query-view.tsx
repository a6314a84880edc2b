import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';

/** Shows an error as a readable message (never a blank page). */
export function ErrorMessage({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <p role="alert" className="error">
      {error instanceof Error ? error.message : JSON.stringify(error)}
    </p>
  );
}

/** A query's three states: loading, a readable error, or its data. */
export function QueryView<T>({ query, children }: { query: UseQueryResult<T>; children: (data: T) => ReactNode }) {
  if (query.isPending) return <p aria-busy="true">Loading…</p>;
  if (query.isError) return <ErrorMessage error={query.error} />;
  return <>{children(query.data)}</>;
}
