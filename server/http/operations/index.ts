import { z } from 'zod';
import { defineOperation, type AnyOperation } from '../operation';
import { buildOpenApiDocument } from '../openapi';
import * as admin from './admin';
import * as approvals from './approvals';
import * as calendars from './calendars';
import * as feeds from './feeds';
import * as proposals from './proposals';
import * as publicRequester from './public';
import * as pools from './pools';
import * as publicAdmin from './publicAdmin';
import * as reminders from './reminders';
import * as scheduling from './scheduling';
import * as schedulingLists from './schedulingLists';
import * as waitlist from './waitlist';
import * as webhooks from './webhooks';

/** Serves the OpenAPI document of the list below (defined here, beside the list, so no module imports back into this one). */
export const openApiOp = defineOperation({
  operationId: 'getOpenApiDocument',
  method: 'GET',
  path: '/v1/openapi.json',
  summary: 'This OpenAPI 3.1 document',
  tags: ['Meta'],
  auth: 'public',
  idempotency: false,
  success: { status: 200, description: 'The document', schema: z.object({ openapi: z.string() }).catchall(z.unknown()) },
  errors: [],
  handler: async ({ baseUrl }) => ({ body: { ...openApiDocument(baseUrl) } }), // a shallow copy typed as a plain object
});

/**
 * Every REST operation. The OpenAPI document is generated from this list, and
 * tests/integration/openapi.test.ts fails when an app/ route binds an
 * operation missing here, so docs cannot drift from code.
 */
export const operations: readonly AnyOperation[] = [openApiOp, ...Object.values(admin), ...Object.values(approvals), ...Object.values(calendars), ...Object.values(scheduling), ...Object.values(schedulingLists), ...Object.values(feeds), ...Object.values(reminders), ...Object.values(pools), ...Object.values(publicAdmin), ...Object.values(proposals), ...Object.values(publicRequester), ...Object.values(waitlist), ...Object.values(webhooks)] as AnyOperation[];

type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;
let cached: { base: string; doc: OpenApiDocument } | undefined;
function openApiDocument(baseUrl: string): OpenApiDocument {
  if (!cached || cached.base !== baseUrl) cached = { base: baseUrl, doc: buildOpenApiDocument(operations, baseUrl) };
  return cached.doc;
}
