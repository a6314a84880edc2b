import { id, described, obj, ref } from './common';

const nullableString = (description: string) => described(description, { type: ['string', 'null'] });
const nullableDateTime = (description: string) => described(description, { type: ['string', 'null'], format: 'date-time' });

/** Dry runs, compatibility reports and audit fields (docs/change-safety.md). */
export const changeSafetySchemas: Record<string, object> = {
  ChangePreview: {
    type: 'object',
    description:
      'Present only on a dry run (`?dry_run=true`): what the change would do. Every check ran; nothing was written and no job started',
    required: ['dry_run', 'blocking_services', 'resolved_features_changes', 'inference', 'stale_subscriptions'],
    properties: {
      dry_run: { const: true, description: 'Always true: this answer describes a change that was not made' },
      blocking_services: described(
        'Services that would block (always empty here: a dry run that blocks answers 422 with blocking_services, like the real call)',
        { type: 'array', items: { type: 'object' } },
      ),
      resolved_features_changes: {
        type: 'array',
        description: 'Services whose stored resolved_features the change would rewrite, before and after',
        items: {
          type: 'object',
          required: ['service_id', 'before', 'after'],
          properties: { service_id: described('The service', id), before: obj, after: obj },
        },
      },
      inference: {
        type: 'object',
        description: 'Whether the change would start inference, and for which services',
        required: ['would_run', 'service_ids'],
        properties: { would_run: { type: 'boolean' }, service_ids: { type: 'array', items: { type: 'string' } } },
      },
      stale_subscriptions: described('Subscriptions the change would mark stale', {
        type: 'array',
        items: { type: 'string', format: 'uuid' },
      }),
      assignments: described(
        'On a version status change: the active assignment revisions that bind the version (of the tenants the caller sees)',
        {
          type: 'array',
          items: { type: 'string', format: 'uuid' },
        },
      ),
    },
  },
  SchemaChange: {
    type: 'object',
    description: 'One difference between two JSON Schemas, seen from a value that satisfied the old one',
    required: ['path', 'kind', 'breaking', 'reason'],
    properties: {
      path: described('Where in the value: a dotted property path, `[]` for array items, empty for the whole value', {
        type: 'string',
      }),
      kind: described('What changed', {
        enum: [
          'property_removed',
          'property_added',
          'new_required_field',
          'field_no_longer_required',
          'additional_properties_closed',
          'additional_properties_opened',
          'type_narrowed',
          'type_widened',
          'type_changed',
          'enum_value_removed',
          'enum_value_added',
          'enum_added',
          'enum_removed',
          'const_changed',
          'default_changed',
          'default_added',
          'default_removed',
          'range_narrowed',
          'range_widened',
          'schema_changed',
        ],
      }),
      breaking: described('Whether a value valid before can be refused (or resolve differently) after', { type: 'boolean' }),
      reason: described('The change in words, e.g. `threshold: type narrowed (number → integer)`', { type: 'string' }),
    },
  },
  FeatureMismatch: {
    type: 'object',
    description: "Where a domain's feature definitions and a model version's feature freeze disagree",
    required: ['feature', 'kind', 'message'],
    properties: {
      feature: described('The feature', { type: 'string' }),
      kind: { enum: ['missing_from_freeze', 'missing_from_domain', 'schema_differs', 'mandatory_differs'] },
      message: described('The mismatch and its consequence in words', { type: 'string' }),
    },
  },
  AssignmentCompatibility: {
    type: 'object',
    description:
      "The assigned version against the revision it replaces and against the domain's feature definitions (init validates against the version's freeze)",
    required: ['compatible', 'replaces', 'changes', 'feature_mismatches'],
    properties: {
      compatible: described('No breaking freeze change and no feature mismatch', { type: 'boolean' }),
      replaces: {
        description: 'The version of the revision it replaces under the same key, if any',
        oneOf: [
          { type: 'object', required: ['model_id', 'model_version'], properties: { model_id: id, model_version: id } },
          { type: 'null' },
        ],
      },
      changes: described('Freeze changes from the replaced version to this one', { type: 'array', items: ref('SchemaChange') }),
      feature_mismatches: described("Disagreements between the domain's features and this version's freeze", {
        type: 'array',
        items: ref('FeatureMismatch'),
      }),
    },
  },
  CompatibilityReport: {
    type: 'object',
    description:
      "What a version's feature freeze or new handler contracts would break: each active assignment of the model (domain and service scope) and each subscription targeting it",
    required: ['model_id', 'subject', 'model_version', 'compatible', 'changes', 'assignments', 'subscriptions'],
    properties: {
      model_id: described('The model', id),
      subject: described(
        '`version`: the freeze of `model_version` against each assigned version; `contracts`: new handler contracts against the current ones',
        { enum: ['version', 'contracts'] },
      ),
      model_version: described('The version checked (subject `version`)', { type: ['string', 'null'] }),
      compatible: described('Every assignment and subscription is compatible', { type: 'boolean' }),
      changes: described('Subject `contracts`: the changes of the input schemas', { type: 'array', items: ref('SchemaChange') }),
      assignments: {
        type: 'array',
        description:
          'Active assignments of the model (at most 1000): of every tenant for platform callers, of its own tenants for a caller bound to tenants (`compatible` still judges them all)',
        items: {
          type: 'object',
          required: [
            'assignment_id',
            'client_id',
            'domain_id',
            'service_id',
            'assignment_key',
            'model_version',
            'compatible',
            'changes',
            'feature_mismatches',
          ],
          properties: {
            assignment_id: { type: 'string', format: 'uuid' },
            client_id: id,
            domain_id: id,
            service_id: described('Set for a service-scoped assignment', { type: ['string', 'null'] }),
            assignment_key: id,
            model_version: described('The version it binds now', id),
            compatible: { type: 'boolean' },
            changes: { type: 'array', items: ref('SchemaChange') },
            feature_mismatches: { type: 'array', items: ref('FeatureMismatch') },
          },
        },
      },
      subscriptions: {
        type: 'array',
        description:
          'Subscriptions whose target is the model: a stored input is checked against the (new) inference input_schema; a trigger-output input against the breaking changes',
        items: {
          type: 'object',
          required: ['subscription_id', 'source_model_id', 'input_source', 'status', 'compatible', 'reasons'],
          properties: {
            subscription_id: { type: 'string', format: 'uuid' },
            source_model_id: id,
            input_source: { enum: ['stored', 'trigger_output'] },
            status: { enum: ['active', 'stale', 'disabled'] },
            compatible: { type: 'boolean' },
            reasons: described('Why it is breaking, in words; empty when compatible', { type: 'array', items: { type: 'string' } }),
          },
        },
      },
    },
  },
};

/** Audit fields of an assignment revision: when it was in force and who made and retired it. */
export const assignmentAuditFields = {
  activated_at: nullableDateTime('When this revision came into force; null for a revision written `archived` (it retired its key)'),
  archived_at: nullableDateTime('When a later upsert took it out of force; null while active'),
  created_by: nullableString("Who wrote it (the token's client id or user); null for rows written before audit fields existed"),
  archived_by: nullableString('Who archived it (the writer of the next revision)'),
  status_reason: nullableString(
    "Why it left force other than by an upsert: `promoted`, `rolled back: <reason>` or the guardrail's reason (docs/progressive-delivery.md)",
  ),
};

/** Audit fields of versions and subscriptions. */
export const statusAuditFields = {
  created_by: nullableString("Who created it (the token's client id or user); null before audit fields existed"),
  status_changed_by: nullableString('Who last set the status through the status route'),
  status_changed_at: nullableDateTime('When the status route last set the status'),
};
