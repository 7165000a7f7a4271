import { extendZodWithOpenApi, OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

extendZodWithOpenApi(z);
import { statusForCode, type ErrorCode } from '@/server/domain/errorCodes';
import type { AnyOperation } from './operation';

/** Codes every operation of a kind can answer, whatever it does. */
const COMMON_ERRORS: Record<AnyOperation['auth'], ErrorCode[]> = {
  api_key: ['invalid_request', 'invalid_json', 'payload_too_large', 'unsupported_media_type', 'unknown_api_key', 'api_key_revoked', 'agent_disabled', 'permission_denied', 'rate_limited', 'internal_error'],
  public: ['invalid_request', 'invalid_json', 'payload_too_large', 'unsupported_media_type', 'rate_limited', 'internal_error'],
};
const IDEMPOTENCY_ERRORS: ErrorCode[] = ['IDEMPOTENCY_IN_FLIGHT', 'IDEMPOTENCY_CONFLICT'];

const Notification = z.object({ id: z.string(), kind: z.string(), created_at: z.string(), data: z.record(z.string(), z.unknown()) });
export const ErrorEnvelope = z
  .object({
    error: z.object({
      code: z.string().describe('Stable; clients switch on it'),
      message: z.string().describe('Human-readable; do not parse'),
      reason: z.string().optional().describe('Present on arbitration errors'),
      details: z.unknown().optional(),
    }),
    pending_notifications: z.array(Notification).describe('Always present; the agent notification queue, oldest first'),
  })
  .catchall(z.unknown())
  .describe('Error envelope; extra detail (alternatives, reason_code, next_available, ...) sits at the top level');

function errorCodesOf(op: AnyOperation): ErrorCode[] {
  const idem = op.auth === 'api_key' && op.method !== 'GET' && op.idempotency !== false ? IDEMPOTENCY_ERRORS : [];
  return [...new Set([...COMMON_ERRORS[op.auth], ...idem, ...op.errors])];
}

/** The OpenAPI 3.1 document, generated from the very operations (and zod schemas) the handlers run. */
export function buildOpenApiDocument(operations: readonly AnyOperation[], serverUrl?: string) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'apiKey', { type: 'http', scheme: 'bearer', description: 'API key `ak_...`' });
  registry.registerComponent('securitySchemes', 'requesterCredential', { type: 'http', scheme: 'bearer', description: 'Optional requester credential `rc_...`' });
  const envelope = registry.register('ErrorEnvelope', ErrorEnvelope);

  for (const op of operations) {
    const byStatus = new Map<number, string[]>();
    for (const code of errorCodesOf(op)) {
      const status = statusForCode(code);
      byStatus.set(status, [...(byStatus.get(status) ?? []), code === 'permission_denied' ? 'permission_denied:<perm>' : code]);
    }
    const responses: Record<string, { description: string; content?: Record<string, { schema: z.ZodType }> }> = {
      [op.success.status]: { description: op.success.description, ...(op.success.schema ? { content: { 'application/json': { schema: op.success.schema } } } : {}) },
    };
    for (const [status, codes] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
      responses[status] = { description: `Error codes: ${codes.join(', ')}`, content: { 'application/json': { schema: envelope } } };
    }
    const idempotent = op.auth === 'api_key' && op.method !== 'GET' && op.idempotency !== false;
    registry.registerPath({
      method: op.method.toLowerCase() as 'get',
      path: op.path,
      operationId: op.operationId,
      summary: op.summary,
      description: [op.description, op.permission ? `Requires permission \`${op.permission}\`.` : undefined, op.rateLimit ? `Rate limit policy: ${op.rateLimit.policy}.` : undefined]
        .filter(Boolean)
        .join('\n\n') || undefined,
      tags: op.tags,
      security: op.auth === 'api_key' ? [{ apiKey: [] }] : op.path.startsWith('/public') ? [{}, { requesterCredential: [] }] : [],
      request: {
        ...(op.params ? { params: op.params } : {}),
        ...(op.query ? { query: op.query } : {}),
        ...(idempotent ? { headers: z.object({ 'Idempotency-Key': z.string().max(255).optional() }) } : {}),
        ...(op.body ? { body: { required: true, content: { 'application/json': { schema: op.body } } } } : {}),
      },
      responses,
    });
  }

  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Scheduling service API',
      version: '1.0.0',
      description: 'Agents find, hold and book time on calendar owners\' calendars; every booking decision is arbitrated and explained. Requesters propose meetings through public links.',
    },
    servers: serverUrl ? [{ url: serverUrl }] : [],
  });
}
