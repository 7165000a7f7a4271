import { getConfig } from '@/server/config';
import { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, testWebhook, updateWebhook } from '@/server/domain/webhooks/endpoints';
import { IdParams } from '@/server/schemas/common';
import * as S from '@/server/schemas/webhooks';
import { defineOperation } from '../operation';

/**
 * /v1/webhooks: each agent manages its own endpoints with any valid key (no permission:
 * an endpoint receives only events about this agent; docs/webhooks.md "Permissions").
 */
const allowPrivate = () => getConfig().outboundAllowPrivate;
const TAGS = ['Webhooks'];

export const createWebhookOp = defineOperation({
  operationId: 'createWebhook',
  method: 'POST',
  path: '/v1/webhooks',
  summary: 'Register a webhook endpoint (the signing secret is shown once)',
  tags: TAGS,
  auth: 'api_key',
  body: S.WebhookCreateBody,
  idempotency: { redact: ['secret'] },
  success: { status: 201, description: 'The endpoint; `secret` appears only in this response', schema: S.CreatedWebhook },
  errors: ['WEBHOOK_URL_REFUSED', 'WEBHOOK_LIMIT_REACHED'],
  handler: async ({ db, actor, body, now }) => ({ body: await createWebhook(db, actor, body, allowPrivate(), now) }),
});

export const listWebhooksOp = defineOperation({
  operationId: 'listWebhooks',
  method: 'GET',
  path: '/v1/webhooks',
  summary: "List this agent's webhook endpoints",
  tags: TAGS,
  auth: 'api_key',
  success: { status: 200, description: 'The endpoints', schema: S.WebhookList },
  errors: [],
  handler: async ({ db, actor }) => ({ body: { webhooks: await listWebhooks(db, actor) } }),
});

export const getWebhookOp = defineOperation({
  operationId: 'getWebhook',
  method: 'GET',
  path: '/v1/webhooks/{id}',
  summary: 'Read a webhook endpoint (status, consecutive failures, why it was disabled)',
  tags: TAGS,
  auth: 'api_key',
  params: IdParams,
  success: { status: 200, description: 'The endpoint', schema: S.Webhook },
  errors: ['WEBHOOK_NOT_FOUND'],
  handler: async ({ db, actor, params }) => ({ body: await getWebhook(db, actor, params.id) }),
});

export const updateWebhookOp = defineOperation({
  operationId: 'updateWebhook',
  method: 'PATCH',
  path: '/v1/webhooks/{id}',
  summary: 'Change URL, events or description; disable or re-enable',
  tags: TAGS,
  auth: 'api_key',
  params: IdParams,
  body: S.WebhookPatchBody,
  success: { status: 200, description: 'The endpoint', schema: S.Webhook },
  errors: ['WEBHOOK_NOT_FOUND', 'WEBHOOK_URL_REFUSED'],
  handler: async ({ db, actor, params, body, now }) => ({ body: await updateWebhook(db, actor, params.id, body, allowPrivate(), now) }),
});

export const deleteWebhookOp = defineOperation({
  operationId: 'deleteWebhook',
  method: 'DELETE',
  path: '/v1/webhooks/{id}',
  summary: 'Delete a webhook endpoint (its undelivered deliveries are dropped)',
  tags: TAGS,
  auth: 'api_key',
  params: IdParams,
  success: { status: 200, description: 'Deleted', schema: S.DeletedWebhook },
  errors: ['WEBHOOK_NOT_FOUND'],
  handler: async ({ db, actor, params }) => ({ body: await deleteWebhook(db, actor, params.id) }),
});

export const testWebhookOp = defineOperation({
  operationId: 'testWebhook',
  method: 'POST',
  path: '/v1/webhooks/{id}/test',
  summary: 'Queue a signed webhook.test delivery to this endpoint',
  tags: TAGS,
  auth: 'api_key',
  params: IdParams,
  success: { status: 202, description: 'Queued; follow it in the delivery log', schema: S.WebhookTestResult },
  errors: ['WEBHOOK_NOT_FOUND'],
  handler: async ({ db, actor, params, now }) => ({ body: await testWebhook(db, actor, params.id, now) }),
});

export const listWebhookDeliveriesOp = defineOperation({
  operationId: 'listWebhookDeliveries',
  method: 'GET',
  path: '/v1/webhooks/{id}/deliveries',
  summary: "An endpoint's delivery log, newest first",
  tags: TAGS,
  auth: 'api_key',
  params: IdParams,
  query: S.DeliveriesQuery,
  success: { status: 200, description: 'Deliveries', schema: S.DeliveryList },
  errors: ['WEBHOOK_NOT_FOUND'],
  handler: async ({ db, actor, params, query }) => ({ body: await listDeliveries(db, actor, params.id, query.limit, query.cursor) }),
});
