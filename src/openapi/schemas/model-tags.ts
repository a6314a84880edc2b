import { described, IDENTIFIER_PATTERN } from './common';

/** At most this many tags on one model or version; the database checks the same bound (registry_tags_valid). */
export const MAX_TAGS = 50;
export const MAX_TAG_VALUE_LENGTH = 256;
/** Visible text: a control character (NUL above all, which Postgres cannot store) is refused as input. */
const TAG_VALUE = { type: 'string', maxLength: MAX_TAG_VALUE_LENGTH, pattern: '^[^\\x00-\\x1f\\x7f]*$' } as const;

/** Tags of models and versions: key → text labels the registry's search filters on. */
export const modelTagSchemas: Record<string, object> = {
  Tags: {
    type: 'object',
    description: `Key → value labels (\`team\`, \`dataset\`), at most ${MAX_TAGS}; keys like identifiers, values text of at most ${MAX_TAG_VALUE_LENGTH} characters`,
    maxProperties: MAX_TAGS,
    propertyNames: { pattern: IDENTIFIER_PATTERN },
    additionalProperties: TAG_VALUE,
  },
  TagRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['value'],
    properties: { value: described('The tag value (empty allowed: a label without a value)', TAG_VALUE) },
  },
};
