import { id, ref, ts } from './common';

/** Clients, domains and feature definitions. */
export const tenantSchemas: Record<string, object> = {
  Client: {
    type: 'object',
    properties: { client_id: id, client_uuid: { type: 'string', format: 'uuid' }, name: { type: 'string' }, status: { enum: ['active', 'suspended'] }, ...ts },
  },
  UpsertClientRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { name: { type: 'string', maxLength: 200 } },
  },
  ClientStatusRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: { enum: ['active', 'suspended'] } },
  },
  FeatureDefinition: {
    type: 'object',
    additionalProperties: false,
    required: ['name', 'json_schema', 'mandatory'],
    properties: {
      name: { type: 'string', minLength: 1, maxLength: 128 },
      json_schema: { type: 'object' },
      mandatory: { type: 'boolean' },
    },
  },
  FeatureDefinitions: { type: 'array', maxItems: 500, items: ref('FeatureDefinition') },
  Domain: {
    type: 'object',
    properties: {
      client_id: id, domain_id: id, domain_uuid: { type: 'string', format: 'uuid' },
      status: { enum: ['not_ready', 'active'] }, ...ts,
    },
  },
  CreateDomainRequest: {
    type: 'object',
    additionalProperties: false,
    properties: { domain_id: id, features: ref('FeatureDefinitions') },
  },
  DomainStatusRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['status'],
    properties: { status: { enum: ['not_ready', 'active'] } },
  },
  ReplaceFeaturesRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['features'],
    properties: { features: ref('FeatureDefinitions') },
  },
  FeaturesResponse: { type: 'object', properties: { features: ref('FeatureDefinitions') } },
  AssignModelRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['model_id'],
    properties: { model_id: id },
  },
};
