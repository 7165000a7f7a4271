import { z } from 'zod';
import { defineOperation } from '../operation';

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
  handler: async ({ baseUrl }) => {
    // Imported lazily: the operation list imports this module.
    const { openApiDocument } = await import('./index');
    return { body: { ...openApiDocument(baseUrl) } }; // a shallow copy typed as a plain object
  },
});
