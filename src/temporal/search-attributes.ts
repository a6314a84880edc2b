import type { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { TypedSearchAttributes, type SearchAttributeType } from '@temporalio/common';
import { JOB_SEARCH_ATTRIBUTES } from '../../workflows/search-attributes';

type OperatorConnection = Pick<Connection, 'operatorService'>;
type Key = { name: string; type: SearchAttributeType };

// gRPC status codes the operator service answers with: Temporal Cloud and an authorizer that keeps operator calls
// to administrators answer PERMISSION_DENIED (or UNIMPLEMENTED, where the operator service is not served).
const ALREADY_EXISTS = 6;
const PERMISSION_DENIED = 7;
const UNIMPLEMENTED = 12;

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

/** The commands an operator runs to add the attributes: `tcld` on Temporal Cloud, the Temporal CLI elsewhere. */
export function addAttributeCommands(namespace: string, missing: readonly Key[], cloud: boolean): string[] {
  if (cloud)
    return [
      `tcld namespace search-attributes add --namespace ${namespace} ` +
        missing.map((k) => `--search-attribute "${k.name}=${cliType(k.type)}"`).join(' '),
    ];
  return missing.map(
    (k) => `temporal operator search-attribute create --namespace ${namespace} --name ${k.name} --type ${cliType(k.type)}`,
  );
}

/** Raised when the job search attributes are missing and this process may not (or could not) register them. */
export class SearchAttributesMissingError extends Error {
  readonly commands: string[];

  constructor(
    readonly namespace: string,
    readonly missing: Key[],
    reason: string,
    cloud = false,
  ) {
    const commands = addAttributeCommands(namespace, missing, cloud);
    super(
      `Temporal namespace "${namespace}" lacks the job search attributes ${missing.map((k) => `${k.name} (${cliType(k.type)})`).join(', ')}; ${reason}. ` +
        `An operator can create them with:\n` +
        commands.map((c) => `  ${c}`).join('\n'),
    );
    this.name = 'SearchAttributesMissingError';
    this.commands = commands;
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
  options: { register: boolean; wanted?: readonly Key[]; cloud?: boolean } = { register: true },
): Promise<{ registered: string[] }> {
  const cloud = options.cloud ?? false;
  const missing = await missingSearchAttributes(connection, namespace, options.wanted);
  if (missing.length === 0) return { registered: [] };
  if (!options.register)
    throw new SearchAttributesMissingError(
      namespace,
      missing,
      'this service does not register them here (TEMPORAL_REGISTER_SEARCH_ATTRIBUTES=off)',
      cloud,
    );
  try {
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((k) => [k.name, INDEXED_TYPE[k.type]])),
    });
  } catch (err) {
    const code = (err as { code?: number }).code;
    if (code !== ALREADY_EXISTS) {
      const why =
        code === PERMISSION_DENIED || code === UNIMPLEMENTED
          ? `this service has no permission to register them (${(err as { details?: string }).details || (err as Error).message})`
          : `registering them failed: ${(err as Error).message}`;
      throw new SearchAttributesMissingError(namespace, missing, why, cloud);
    }
  }
  // Visibility stores apply new attributes asynchronously: wait until the namespace lists them.
  for (let attempt = 0; ; attempt++) {
    const still = await missingSearchAttributes(connection, namespace, missing);
    if (still.length === 0) return { registered: missing.map((k) => k.name) };
    if (attempt >= 50) throw new SearchAttributesMissingError(namespace, still, 'they were registered but never became visible', cloud);
    await new Promise((r) => setTimeout(r, 200));
  }
}
