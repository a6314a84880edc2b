import { OPERATIONS, Operation } from './operations';

function permission(op: Operation): string {
  if (op.permission === 'admin') return 'administrators only';
  if (op.permission === 'public') return 'public';
  return `\`${op.permission}\``;
}

function success(op: Operation): string {
  if (op.id === 'upsertClient') return '201 created / 200 updated';
  if (op.id === 'completeJob') return '200 / 207';
  return String(op.status);
}

/** The route → permission table as Markdown; docs/authorization.md holds a copy that a test keeps in step. */
export function renderRouteTable(): string {
  const rows = OPERATIONS.map((op) => `| ${op.method} | \`${op.path}\` | ${permission(op)} | ${op.tenancy} | ${success(op)} |`);
  return ['| method | path | permission | tenant check | success |', '|---|---|---|---|---|', ...rows].join('\n');
}
