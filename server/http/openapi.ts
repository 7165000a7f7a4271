import { extendZodWithOpenApi, OpenAPIRegistry, OpenApiGeneratorV31, type ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { createHash } from 'node:crypto';
import { z } from 'zod';

extendZodWithOpenApi(z);
import { PERMISSIONS } from '@/db/schema';
import { ERROR_CODES, permissionDeniedCode, statusForCode, type ErrorCode } from '@/server/domain/errorCodes';
import { requiredPermissions } from '@/server/domain/access';
import { takesCallerZone, type AnyOperation } from './operation';
import { errorEnvelopeFor } from '@/server/schemas/errors';
import { CallerZoneQuery } from '@/server/schemas/common';

/** Codes every operation of a kind can answer, whatever it does (permission codes come from the operation); service_unavailable: the database primary was lost (docs/operations.md "High availability"). */
const COMMON_ERRORS: Record<AnyOperation['auth'], ErrorCode[]> = {
  api_key: ['invalid_request', 'invalid_json', 'payload_too_large', 'unsupported_media_type', 'unknown_api_key', 'api_key_revoked', 'agent_disabled', 'rate_limited', 'internal_error', 'service_unavailable'],
  public: ['invalid_request', 'invalid_json', 'payload_too_large', 'unsupported_media_type', 'rate_limited', 'internal_error', 'service_unavailable'],
};
const IDEMPOTENCY_ERRORS: ErrorCode[] = ['IDEMPOTENCY_IN_FLIGHT', 'IDEMPOTENCY_CONFLICT'];
/** The calendar gate's refusals (docs/calendars.md "How fresh, and what fails closed"): any call naming an owner whose gate runs. */
const GATE_ERRORS: ErrorCode[] = ['CALENDAR_REAUTH_REQUIRED', 'CALENDAR_UNAVAILABLE'];
/** A call taking the caller's `time_zone` refuses an unknown one (docs/api.md "The caller's time zone"). */
const CALLER_ZONE_ERRORS: ErrorCode[] = ['INVALID_TIME_ZONE'];
const hasCalendarGate = (op: AnyOperation) => op.auth === 'api_key' && Boolean(op.scope) && op.scope?.gate !== false;

/** The top-level tags, in document order. */
const TAGS: { name: string; description: string }[] = [
  { name: 'Scheduling', description: 'Search availability, hold, book, confirm and cancel; arbitration dry runs, notifications, the audit log, agent proposals' },
  { name: 'Administration', description: 'Calendar owners, their schedule rules, meeting classes' },
  { name: 'Calendars', description: "An owner's connected calendars (internal, CalDAV, Google, Microsoft 365): status, last sync, connect, primary and conflict checking" },
  { name: 'Pools', description: 'Named sets of owners with weights that agents book through: a free member is picked by weighted load (docs/groups.md)' },
  { name: 'Agents and keys', description: 'Agents, their permissions and owner scope, API keys' },
  { name: 'Webhooks', description: "Signed pushes of the agent's events to its own endpoints: endpoints, test-send, delivery log (docs/webhooks.md)" },
  { name: 'Public scheduling administration', description: 'Public links, meeting types, audiences, verified domains, requester identities' },
  { name: 'Public', description: 'The requester-facing API behind public scheduling links (no API key)' },
  { name: 'Meta', description: 'This document' },
];

const isIdempotent = (op: AnyOperation) => op.auth === 'api_key' && op.method !== 'GET' && op.idempotency !== false;

/** Every code an operation can answer, as sent (`permission_denied:<perm>` spelled out). */
export function errorCodesOf(op: AnyOperation): string[] {
  const declared = op.errors.filter((c): c is ErrorCode => !c.startsWith('permission_denied'));
  const codes: string[] = [...new Set([...COMMON_ERRORS[op.auth], ...(isIdempotent(op) ? IDEMPOTENCY_ERRORS : []), ...(hasCalendarGate(op) ? GATE_ERRORS : []), ...(takesCallerZone(op) ? CALLER_ZONE_ERRORS : []), ...declared])];
  // `permission_denied` in `errors` means any permission (an agent granting permissions it lacks).
  const perms = op.errors.includes('permission_denied')
    ? PERMISSIONS.map(permissionDeniedCode)
    : [...(op.permission ? requiredPermissions(op.permission).map(permissionDeniedCode) : []), ...op.errors.filter((c) => c.startsWith('permission_denied:'))];
  codes.push(...new Set(perms));
  return codes;
}

const header = (description: string, schema: { type: 'integer' | 'string'; minimum?: number; enum?: string[] }) => ({ description, schema });
const HEADERS = {
  'RateLimit-Limit': header('Requests allowed in the current window of the policy that applies (per API key or per client IP)', { type: 'integer', minimum: 0 }),
  'RateLimit-Remaining': header('Requests left in the current window', { type: 'integer', minimum: 0 }),
  'RateLimit-Reset': header('Seconds until the window resets', { type: 'integer', minimum: 0 }),
  'Retry-After': header('Seconds to wait before retrying', { type: 'integer', minimum: 1 }),
  'Idempotent-Replayed': header('`true` when this is the stored answer to an earlier request with the same Idempotency-Key', { type: 'string', enum: ['true'] }),
  'WWW-Authenticate': header('`Bearer error="invalid_token", error_description="<code>"`', { type: 'string' }),
  'X-Request-Id': header('The request id (the one sent when it is 1 to 128 of A-Z a-z 0-9 . _ -, else a new one)', { type: 'string' }),
  Allow: header('The methods this path supports', { type: 'string' }),
} as const;
type HeaderName = keyof typeof HEADERS;
const headerRefs = (names: HeaderName[]) => Object.fromEntries(names.map((n) => [n, { $ref: `#/components/headers/${n}` }]));
const COMMON_HEADERS: HeaderName[] = ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

/** The component names of an error code's body and of a shared error response. */
const codeSchemaName = (code: string) => `Error_${code.replace(':', '.')}`;
const catalogued = (code: string) => (code.startsWith('permission_denied:') ? 'permission_denied' : code) as ErrorCode;

/**
 * The error responses of one operation, as references to shared components
 * (docs/architecture.md "Response shapes and the OpenAPI document"): each
 * (status, codes, replayable) combination is one response component, shared by
 * every operation that answers exactly those codes there; its body is a
 * `oneOf` of one schema per code (`Error_<code>`: `error.code` that one code,
 * plus the top-level details that code adds), so a client narrows on the code.
 */
function errorResponses(op: AnyOperation, shared: Map<string, ResponseConfig>): Record<string, ResponseConfig> {
  const byStatus = new Map<number, string[]>();
  for (const code of errorCodesOf(op)) byStatus.set(statusForCode(code), [...(byStatus.get(statusForCode(code)) ?? []), code]);
  const out: Record<string, ResponseConfig> = {};
  for (const [status, codes] of [...byStatus.entries()].sort((a, b) => a[0] - b[0])) {
    const names: HeaderName[] = [...COMMON_HEADERS, ...(status === 429 ? (['Retry-After'] as const) : []), ...(status === 401 ? (['WWW-Authenticate'] as const) : [])];
    // A stored 4xx is replayed too (same Idempotency-Key).
    const replayable = isIdempotent(op) && status < 500 && status !== 429;
    if (replayable) names.push('Idempotent-Replayed');
    const sorted = [...codes].sort();
    const name = `Error${status}_${createHash('sha256').update(`${sorted.join(',')}|${replayable}`).digest('hex').slice(0, 8)}`;
    if (!shared.has(name)) {
      shared.set(name, {
        description: sorted.map((c) => `\`${c}\``).join(', '), // each body schema (oneOf) says when
        headers: headerRefs(names) as ResponseConfig['headers'],
        content: { 'application/json': { schema: { oneOf: sorted.map((c) => ({ $ref: `#/components/schemas/${codeSchemaName(c)}` })) } } },
      });
    }
    out[status] = { $ref: `#/components/responses/${name}` } as unknown as ResponseConfig;
  }
  out['405'] = { $ref: '#/components/responses/MethodNotAllowed' } as unknown as ResponseConfig;
  return out;
}

function describe(op: AnyOperation): string {
  return [
    op.description ?? `${op.summary}.`,
    op.permission ? `Requires permission ${requiredPermissions(op.permission).map((p) => `\`${p}\``).join(' or ')}.` : undefined,
    op.rateLimit ? `Rate limit policy: ${op.rateLimit.policy}.` : undefined,
    isIdempotent(op) ? 'Idempotency-Key makes retries safe.' : undefined,
  ]
    .filter(Boolean)
    .join(' '); // one paragraph: a generated client's comment stays one line per operation
}

/** The OpenAPI 3.1 document, generated from the very operations (and zod schemas) the handlers run. */
export function buildOpenApiDocument(operations: readonly AnyOperation[], serverUrl?: string) {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'apiKey', { type: 'http', scheme: 'bearer', description: 'API key `ak_...`' });
  registry.registerComponent('securitySchemes', 'requesterCredential', { type: 'http', scheme: 'bearer', description: 'Optional requester credential `rc_...`' });
  for (const [name, h] of Object.entries(HEADERS)) registry.registerComponent('headers', name, h);
  registry.registerComponent('responses', 'MethodNotAllowed', {
    description:
      '`method_not_allowed`: the path does not support the method (answered for any method not listed on the path; OpenAPI has no per-path responses, so every operation names it)',
    headers: headerRefs(['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Allow']),
    content: { 'application/json': { schema: { $ref: '#/components/schemas/MethodNotAllowedEnvelope' } } },
  });
  registry.register('MethodNotAllowedEnvelope', errorEnvelopeFor(['method_not_allowed'], ['method_not_allowed']));
  const sharedResponses = new Map<string, ResponseConfig>();
  const idempotencyKey = registry.registerParameter(
    'IdempotencyKey',
    z.string().min(1).max(255).optional().openapi({ param: { name: 'Idempotency-Key', in: 'header' }, description: '1 to 255 visible ASCII characters; a retry with the same key and request answers the stored response (`Idempotent-Replayed: true`)' }),
  );
  // The caller's zone is one parameter every call answering times takes: described once, referenced (docs/api.md "The caller's time zone").
  const callerTimeZone = registry.registerParameter('CallerTimeZone', CallerZoneQuery.time_zone.meta({ param: { name: 'time_zone', in: 'query' } }));
  const queryOf = (op: AnyOperation) => {
    const q = op.query as z.ZodObject;
    return q.shape.time_zone === CallerZoneQuery.time_zone ? q.extend({ time_zone: callerTimeZone }) : q;
  };
  const codes = new Set(operations.flatMap(errorCodesOf));
  for (const code of [...codes].sort()) {
    registry.register(codeSchemaName(code), errorEnvelopeFor([code], [catalogued(code)]).meta({ description: `\`${code}\`: ${ERROR_CODES[catalogued(code)].description}` }));
  }

  for (const op of operations) {
    const success = (description: string, schema = op.success.schema): ResponseConfig => ({
      description,
      headers: headerRefs([...COMMON_HEADERS, ...(isIdempotent(op) ? (['Idempotent-Replayed'] as const) : [])]) as ResponseConfig['headers'],
      ...(schema ? { content: { 'application/json': { schema } } } : {}),
    });
    const responses: Record<string, ResponseConfig> = {
      [op.success.status]: success(op.success.description),
      ...(op.success.also ? { [op.success.also.status]: success(op.success.also.description, op.success.also.schema ?? op.success.schema) } : {}),
      ...errorResponses(op, sharedResponses),
    };
    registry.registerPath({
      method: op.method.toLowerCase() as 'get',
      path: op.path,
      operationId: op.operationId,
      summary: op.summary,
      description: describe(op),
      tags: op.tags,
      security: op.auth === 'api_key' ? [{ apiKey: [] }] : op.path.startsWith('/public') ? [{}, { requesterCredential: [] }] : [],
      request: {
        ...(op.params ? { params: op.params } : {}),
        ...(op.query ? { query: queryOf(op) } : {}),
        ...(isIdempotent(op) ? { headers: z.object({ 'Idempotency-Key': idempotencyKey }) } : {}),
        ...(op.body ? { body: { required: true, content: { 'application/json': { schema: op.body } } } } : {}),
      },
      responses,
    });
  }

  for (const [name, response] of [...sharedResponses.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) registry.registerComponent('responses', name, response as Parameters<typeof registry.registerComponent<'responses'>>[2]);

  const generator = new OpenApiGeneratorV31(registry.definitions);
  return generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Scheduling service API',
      version: '1.0.0',
      description:
        "Agents find, hold and book time on calendar owners' calendars; every booking decision is arbitrated and explained. Requesters propose meetings through public links.\n\n" +
        'Every error answers the envelope `{error: {code, message, reason?, details?}, pending_notifications: [...], ...}`: `error.code` is stable (switch on it) and one of the codes each response lists, one body schema per code (`Error_<code>`, shared by every operation answering it, with the details that code adds); `error.message` is human-readable (do not parse); `pending_notifications` is always present (the agent notification queue, oldest first). ' +
        'Unknown paths answer 404 `not_found` and unsupported methods 405 `method_not_allowed` (with `Allow`) in the same envelope. Every response carries `RateLimit-*` headers; 429 adds `Retry-After`.',
      contact: { name: 'The operator of this service' },
    },
    servers: serverUrl ? [{ url: serverUrl }] : [],
    tags: [...TAGS, ...[...new Set(operations.flatMap((op) => op.tags))].filter((n) => !TAGS.some((t) => t.name === n)).map((name) => ({ name }))].filter((t) =>
      operations.some((op) => op.tags.includes(t.name)),
    ),
  });
}
