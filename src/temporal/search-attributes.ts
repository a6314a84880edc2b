import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TypedSearchAttributes, type SearchAttributeType } from '@temporalio/common';
import { JOB_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';

type OperatorConnection = Pick<Connection, 'operatorService'>;
type Key = { name: string; type: SearchAttributeType };

// gRPC status codes the operator service answers with.
const ALREADY_EXISTS = 6;
const PERMISSION_DENIED = 7;

const IndexedValueType = temporal.api.enums.v1.IndexedValueType;
const INDEXED_TYPE: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  KEYWORD: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  TEXT: IndexedValueType.INDEXED_VALUE_TYPE_TEXT,
  INT: IndexedValueType.INDEXED_VALUE_TYPE_INT,
  DOUBLE: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
  BOOL: IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  DATETIME: IndexedValueType.INDEXED_VALUE_TYPE_DATETIME,
  KEYWORD_LIST: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD_LIST,
};

/** The CLI's name of a search-attribute type (`--type Keyword`). */
function cliType(type: SearchAttributeType): string {
  const name = TypedSearchAttributes.toMetadataType(type);
  return name === 'KeywordList' ? 'KeywordList' : name.charAt(0) + name.slice(1).toLowerCase();
}

/** Names of the job search attributes the namespace does not define. */
export async function missingSearchAttributes(
  connection: OperatorConnection,
  namespace: string,
  wanted: readonly Key[] = JOB_SEARCH_ATTRIBUTES,
): Promise<Key[]> {
  const listed = await connection.operatorService.listSearchAttributes({ namespace });
  const defined = new Set([...Object.keys(listed.customAttributes ?? {}), ...Object.keys(listed.systemAttributes ?? {})]);
  return wanted.filter((key) => !defined.has(key.name));
}

/** Raised when the job search attributes are missing and this process may not (or could not) register them. */
export class SearchAttributesMissingError extends Error {
  constructor(
    readonly namespace: string,
    readonly missing: Key[],
    reason: string,
  ) {
    super(
      `Temporal namespace "${namespace}" lacks the job search attributes ${missing.map((k) => `${k.name} (${cliType(k.type)})`).join(', ')}; ${reason}. ` +
        `An operator can create them with:\n` +
        missing
          .map((k) => `  temporal operator search-attribute create --namespace ${namespace} --name ${k.name} --type ${cliType(k.type)}`)
          .join('\n'),
    );
    this.name = 'SearchAttributesMissingError';
  }
}

/**
 * Makes sure the namespace defines every search attribute the job workflows write, registering the missing
 * ones through the operator service. Idempotent, and safe when several processes race (an "already exists"
 * answer counts as success). Throws SearchAttributesMissingError naming each attribute when it cannot.
 */
export async function ensureSearchAttributes(
  connection: OperatorConnection,
  namespace: string,
  options: { register: boolean; wanted?: readonly Key[] } = { register: true },
): Promise<{ registered: string[] }> {
  const missing = await missingSearchAttributes(connection, namespace, options.wanted);
  if (missing.length === 0) return { registered: [] };
  if (!options.register)
    throw new SearchAttributesMissingError(namespace, missing, 'the worker (or `npm run migrate`) registers them at start');
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((k) => [k.name, INDEXED_TYPE[k.type]])),
    });
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code !== ALREADY_EXISTS) {
      const why =
        code === PERMISSION_DENIED
          ? 'this service has no permission to register them'
          : `registering them failed: ${(err as Error).message}`;
      throw new SearchAttributesMissingError(namespace, missing, why);
    }
  }
  // Visibility stores apply new attributes asynchronously: wait until the namespace lists them.
  for (let attempt = 0; ; attempt++) {
    const still = await missingSearchAttributes(connection, namespace, missing);
    if (still.length === 0) return { registered: missing.map((k) => k.name) };
    if (attempt >= 50) throw new SearchAttributesMissingError(namespace, still, 'they were registered but never became visible');
    await new Promise((r) => setTimeout(r, 200));
  }
}
