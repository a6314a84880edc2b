import type { ReactNode } from 'react';

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
}

/** A table of rows with column headers (scope="col"), or a sentence when there are none. */
export function Table<T>({
  rows,
  rowKey,
  columns,
  empty,
  caption,
}: {
  rows: T[];
  rowKey: (row: T) => string;
  columns: Column<T>[];
  empty: string;
  caption?: string;
}) {
  if (rows.length === 0) return <p>{empty}</p>;
  return (
    <table>
      {caption && <caption>{caption}</caption>}
      <thead>
        <tr>
          {columns.map((c) => (
            <th key={c.header} scope="col">
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={rowKey(row)}>
            {columns.map((c) => (
              <td key={c.header}>{c.cell(row)}</td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
