import { id, dateTime, described } from './common';
import { EVENT_TYPES } from '../../domain/webhooks';

const nullableTime = (description: string) => ({ type: ['string', 'null'], format: 'date-time', description });
const eventTypes = {
  type: 'array',
  minItems: 1,
  maxItems: EVENT_TYPES.length,
  uniqueItems: true,
  description:
    'The events to receive. `version.status_changed`, `version.deleted`, `model.deleted`, `alias.moved` and `subscription.stale` are model registry events: platform-wide endpoints only',
  items: { enum: [...EVENT_TYPES] },
};
const url = described(
  'Where deliveries are POSTed: `https://` (plain `http://` only where WEBHOOK_ALLOW_HTTP is set); no credentials. A host resolving to a loopback, private or link-local address is refused unless WEBHOOK_ALLOWED_PRIVATE_RANGES covers it',
  { type: 'string', minLength: 8, maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' },
);
const filter = {
  type: 'object',
  additionalProperties: false,
  description: 'Only events of this domain and/or model; an event without that field does not pass',
  properties: { domain_id: described('Only events of this domain', id), model_id: described('Only events of this model', id) },
};
const description = described('A note for people', { type: 'string', maxLength: 500 });

/** Outbound webhook endpoints and their deliveries (docs/webhooks.md). */
export const webhookSchemas: Record<string, object> = {
  CreateWebhookRequest: {
    type: 'object',
    additionalProperties: false,
    required: ['url', 'event_types'],
    properties: { url, event_types: eventTypes, filter, description },
  },
  UpdateWebhookRequest: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    properties: {
      url,
      event_types: eventTypes,
      filter,
      description,
      status: described('`disabled` stops deliveries; `active` resumes them and clears `failing`', { enum: ['active', 'disabled'] }),
    },
  },
  Webhook: {
    type: 'object',
    description: 'An endpoint that receives signed event deliveries (Standard Webhooks)',
    required: [
      'webhook_id',
      'client_id',
      'url',
      'description',
      'event_types',
      'filter',
      'status',
      'failing_since',
      'previous_secret_expires_at',
      'created_at',
      'updated_at',
    ],
    properties: {
      webhook_id: described('Endpoint identifier', { type: 'string', format: 'uuid' }),
      client_id: {
        type: ['string', 'null'],
        description: 'The tenant whose events it receives; null for a platform-wide endpoint (every tenant and the model registry)',
      },
      url,
      event_types: eventTypes,
      filter,
      description,
      status: described(
        '`failing` once a delivery gave up after its retries (deliveries go on; a success makes it `active` again); `disabled`: nothing is sent',
        { enum: ['active', 'disabled', 'failing'] },
      ),
      failing_since: nullableTime('When it became failing'),
      previous_secret_expires_at: nullableTime('Until then deliveries are also signed with the secret before the last rotation'),
      created_at: described('When the endpoint was created; it receives events of changes made after it', dateTime),
      updated_at: described('When the endpoint last changed', dateTime),
    },
  },
  WebhookWithSecret: {
    description: 'The new endpoint with its signing secret, shown this once',
    allOf: [
      { $ref: '#/components/schemas/Webhook' },
      {
        type: 'object',
        required: ['secret'],
        properties: {
          secret: described('`whsec_` + base64 of 32 random bytes: the HMAC-SHA256 key of the `webhook-signature` header', {
            type: 'string',
          }),
        },
      },
    ],
  },
  WebhookSecret: {
    type: 'object',
    description: 'A rotated signing secret, shown this once',
    required: ['webhook_id', 'secret', 'previous_secret_expires_at'],
    properties: {
      webhook_id: described('Endpoint identifier', { type: 'string', format: 'uuid' }),
      secret: described('The new secret; deliveries are signed with it from now on', { type: 'string' }),
      previous_secret_expires_at: described('Until then deliveries carry a second signature made with the previous secret', dateTime),
    },
  },
  WebhookDelivery: {
    type: 'object',
    description: 'One event on its way to one endpoint: retried with exponential backoff until it succeeds or gives up',
    required: [
      'delivery_id',
      'webhook_id',
      'event_id',
      'event_type',
      'status',
      'attempts',
      'last_status_code',
      'last_latency_ms',
      'last_error',
      'next_attempt_at',
      'completed_at',
      'created_at',
      'updated_at',
      'attempt_log',
    ],
    properties: {
      delivery_id: described('Delivery identifier', { type: 'string', format: 'uuid' }),
      webhook_id: described('The endpoint', { type: 'string', format: 'uuid' }),
      event_id: described('The event, sent as `webhook-id`: the same on every attempt and redelivery', { type: 'string', format: 'uuid' }),
      event_type: described('The event type (or `webhook.test` for a ping)', { type: 'string' }),
      status: described('`pending` while attempts go on; `succeeded` on a 2xx; `failed` after the give-up', {
        enum: ['pending', 'succeeded', 'failed'],
      }),
      attempts: described('Attempts made so far', { type: 'integer', minimum: 0 }),
      last_status_code: { type: ['integer', 'null'], description: 'The status of the last answer; null when none came' },
      last_latency_ms: { type: ['integer', 'null'], description: 'How long the last attempt took' },
      last_error: { type: ['string', 'null'], description: 'Why the last attempt failed, or why the delivery gave up' },
      next_attempt_at: nullableTime('When the next attempt is due; null when none is'),
      completed_at: nullableTime('When it succeeded or gave up'),
      created_at: described('When the delivery was created', dateTime),
      updated_at: described('When it last changed', dateTime),
      attempt_log: {
        type: 'array',
        description: 'Every attempt, oldest first',
        items: {
          type: 'object',
          required: ['attempt', 'attempted_at', 'status_code', 'latency_ms', 'error'],
          properties: {
            attempt: { type: 'integer', minimum: 1 },
            attempted_at: dateTime,
            status_code: { type: ['integer', 'null'] },
            latency_ms: { type: 'integer', minimum: 0 },
            error: { type: ['string', 'null'] },
          },
        },
      },
    },
  },
};
