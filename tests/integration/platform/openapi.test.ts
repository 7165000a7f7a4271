import { describe, expect, it } from 'vitest';
import { PERMISSIONS } from '@/db/schema';
import { statusForCode } from '@/server/domain/errorCodes';
import { requiredPermissions } from '@/server/domain/access';
import { errorCodesOf } from '@/server/http/openapi';
import { HTTP_METHODS, type AnyOperation } from '@/server/http/operation';
import { operations } from '@/server/http/operations';
import { api } from '../../helpers/app';
import { listRouteFiles, openApiPathOf } from '../../helpers/routes';
import { documentedCodes, mergedEnvelope, resolveResponse } from '../../helpers/openapiDoc';

describe('OpenAPI document', () => {
  it('is served at /v1/openapi.json as OpenAPI 3.1 with every operation and its error codes', async () => {
    const res = await api('GET', '/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    for (const op of operations) {
      const entry = res.body.paths[op.path]?.[op.method.toLowerCase()];
      expect(entry, `${op.method} ${op.path} missing from the document`).toBeDefined();
      expect(entry.operationId).toBe(op.operationId);
      const described = Object.entries(entry.responses as Record<string, { description: string }>)
        .map(([status, r]) => `${status} ${resolveResponse(res.body, r).description}`)
        .join('\n');
      for (const code of op.errors) expect(described, `${op.operationId} should document ${code}`).toContain(code);
    }
    const ownerPost = res.body.paths['/v1/owners'].post;
    const described = (status: string) => resolveResponse(res.body, ownerPost.responses[status]).description;
    expect(described('401')).toContain('unknown_api_key');
    expect(described('403')).toContain('permission_denied:manage_customer');
    expect(described('429')).toContain('rate_limited');
    expect(described('422')).toContain('IDEMPOTENCY_CONFLICT');
    expect(ownerPost.requestBody.content['application/json'].schema).toBeDefined();
  });

  it('covers every operation bound in app/ (docs cannot drift from the routes)', async () => {
    const registered = new Set(operations);
    let bound = 0;
    for (const route of listRouteFiles()) {
      if (!route.urlPattern.startsWith('/v1') && !route.urlPattern.startsWith('/public')) continue;
      const mod = (await import(route.file)) as Record<string, { operation?: AnyOperation }>;
      for (const method of HTTP_METHODS) {
        const op = mod[method]?.operation;
        if (!op) continue;
        bound++;
        expect(registered.has(op), `${method} ${route.urlPattern} is not in server/http/operations/index.ts`).toBe(true);
        expect(op.method).toBe(method);
        expect(op.path).toBe(openApiPathOf(route));
      }
    }
    expect(bound).toBe(operations.length);
  });

  it('types error.code per response as an enum of exactly the codes the operation answers there (from the catalogue)', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body;
    for (const op of operations) {
      const entry = doc.paths[op.path][op.method.toLowerCase()];
      const documented: string[] = [];
      for (const [status, r] of Object.entries(entry.responses as Record<string, { $ref?: string }>)) {
        if (status.startsWith('2') || status === '405') continue;
        const codes = documentedCodes(doc, r);
        for (const c of codes) expect(statusForCode(c), `${op.operationId} ${c}`).toBe(Number(status));
        documented.push(...codes);
      }
      expect(documented.sort(), op.operationId).toEqual(errorCodesOf(op).sort());
      for (const code of op.errors) if (code !== 'permission_denied') expect(documented, `${op.operationId} ${code}`).toContain(code);
      for (const perm of op.permission ? requiredPermissions(op.permission) : []) expect(documented).toContain(`permission_denied:${perm}`);
    }
    const createAgent = documentedCodes(doc, doc.paths['/v1/agents'].post.responses['403']);
    expect(createAgent).toEqual(expect.arrayContaining(PERMISSIONS.map((p) => `permission_denied:${p}`)));
    expect(doc.paths['/v1/holds/{id}'].get.responses['409']).toBeUndefined();
  });

  it('types the error details: reason enum, alternatives, reason_code, next_available, window sizes, fields; notifications by kind', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body;
    const schemas = doc.components.schemas;
    const envelope = (path: string, method: string, status: number) => mergedEnvelope(doc, doc.paths[path][method].responses[status]);
    const booking409 = envelope('/v1/bookings', 'post', 409);
    expect(booking409.properties.error.properties.reason).toEqual({ $ref: '#/components/schemas/ArbitrationReason' });
    expect(schemas.ArbitrationReason.enum).toEqual(expect.arrayContaining(['NO_CAPACITY', 'WORKING_HOURS', 'OFF_DAY', 'SACRED_MEETING', 'MAX_DAILY_HOURS', 'PERMISSION_DENIED_PREEMPT', 'COUNTER_PROPOSED']));
    expect(booking409.properties.alternatives.items).toEqual({ $ref: '#/components/schemas/Alternative' });
    expect(schemas.Alternative.properties.reason_code.enum).toContain('capacity_conflict');
    expect(schemas.Alternative.properties.start).toEqual({ $ref: '#/components/schemas/Timestamp' });
    expect(schemas.Timestamp.format).toBe('date-time');
    const search409 = envelope('/v1/availability/search', 'post', 409);
    expect(search409.properties.reason_code.enum).toEqual(expect.arrayContaining(['NO_FREE_SLOTS', 'HARD_BLOCK']));
    expect(search409.properties.next_available.type).toEqual(['object', 'null']);
    expect(search409.properties.next_available_exceeds_lookahead.type).toBe('boolean');
    const search422 = envelope('/v1/availability/search', 'post', 422);
    expect(search422.properties.window_duration_minutes.type).toBe('integer');
    expect(search422.properties.required_duration_minutes.type).toBe('integer');
    expect(schemas.ErrorDetails.properties.fields.items).toEqual({ $ref: '#/components/schemas/FieldIssue' });
    expect(envelope('/v1/owners', 'post', 400).properties.error.properties.details).toEqual({ $ref: '#/components/schemas/ErrorDetails' });
    // reason only where ARBITRATION_REJECTED can be answered
    expect(envelope('/v1/holds/{id}', 'get', 404).properties.error.properties.reason).toBeUndefined();

    expect(schemas.Notification.discriminator.propertyName).toBe('kind');
    expect(Object.keys(schemas.Notification.discriminator.mapping).sort()).toEqual(['booking.approved', 'booking.cancelled', 'booking.declined', 'booking.preempted', 'booking.reminder', 'booking.rescheduled', 'hold.expired', 'proposal.reviewed', 'waitlist.offered', 'webhook.disabled']);
    expect(doc.paths['/v1/notifications'].get.responses['200'].content['application/json'].schema.properties.notifications.items).toEqual({ $ref: '#/components/schemas/Notification' });
    expect(booking409.properties.pending_notifications.items).toEqual({ $ref: '#/components/schemas/Notification' });
  });

  it('documents response headers (RateLimit-*, Retry-After on 429, Idempotent-Replayed, WWW-Authenticate on 401) and 405', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body;
    for (const name of ['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset', 'Retry-After', 'Idempotent-Replayed', 'WWW-Authenticate', 'Allow']) expect(doc.components.headers[name], name).toBeDefined();
    expect(doc.components.responses.MethodNotAllowed.headers.Allow).toEqual({ $ref: '#/components/headers/Allow' });
    for (const op of operations) {
      const responses = doc.paths[op.path][op.method.toLowerCase()].responses as Record<string, { headers?: Record<string, unknown>; $ref?: string }>;
      for (const [status, ref] of Object.entries(responses)) {
        if (status === '405') {
          expect(ref.$ref).toBe('#/components/responses/MethodNotAllowed');
          continue;
        }
        const r = resolveResponse(doc, ref);
        expect(Object.keys(r.headers ?? {}), `${op.operationId} ${status}`).toEqual(expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']));
        if (status === '429') expect(r.headers).toHaveProperty('Retry-After');
        if (status === '401') expect(r.headers).toHaveProperty('WWW-Authenticate');
      }
      const idempotent = op.auth === 'api_key' && op.method !== 'GET' && op.idempotency !== false;
      expect(Boolean(responses[String(op.success.status)].headers?.['Idempotent-Replayed']), op.operationId).toBe(idempotent);
    }
  });

  it('marks every response timestamp date-time, documents the server limits, lists tags and describes every operation', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body;
    const TIMESTAMP = /^(start|end|at|.*_at)$/;
    const missing: string[] = [];
    const walk = (s: Schema | undefined, where: string) => {
      if (!s || typeof s !== 'object') return;
      if (s.$ref) return walk(doc.components.schemas[s.$ref.split('/').pop()!], where);
      for (const [k, v] of Object.entries(s.properties ?? {})) {
        const types = [v.type ?? []].flat();
        if (TIMESTAMP.test(k) && types.includes('string') && !v.pattern && v.format !== 'date-time') missing.push(`${where}.${k}`);
        walk(v, `${where}.${k}`);
      }
      walk(s.items, `${where}[]`);
      for (const alt of [...(s.oneOf ?? []), ...(s.anyOf ?? [])]) walk(alt, where);
    };
    for (const op of operations) {
      const entry = doc.paths[op.path][op.method.toLowerCase()];
      walk(entry.responses[String(op.success.status)].content?.['application/json']?.schema, op.operationId);
      expect(entry.description, op.operationId).toBeTruthy();
    }
    expect(missing).toEqual([]);

    const search = doc.paths['/v1/availability/search'].post.requestBody.content['application/json'].schema;
    expect(search.properties.next_available_lookahead_hours.maximum).toBe(72);
    const submit = doc.paths['/public/schedules/{id}/booking-proposals'].post.requestBody.content['application/json'].schema;
    expect(submit.properties.attendees.maxItems).toBe(50);
    expect(doc.paths['/v1/bookings'].post.requestBody.content['application/json'].schema.properties.attendees.maxItems).toBe(50);

    const tags = (doc.tags as { name: string; description?: string }[]).map((t) => t.name);
    for (const op of operations) for (const t of op.tags) expect(tags, op.operationId).toContain(t);
    expect(doc.tags.every((t: { description?: string }) => t.description)).toBe(true);
  });
  it('describes conflicts[], all_free window holds and the local times of public suggested times', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body;
    const json = (v: unknown) => JSON.stringify(v);
    expect(Object.keys(doc.components.schemas.Conflict.oneOf ?? doc.components.schemas.Conflict.anyOf)).toHaveLength(5);
    expect(json(doc.components.schemas.Conflict)).toContain('hard_block');
    // A meeting a buffer ran into (docs/arbitration.md "Buffers").
    expect(json(doc.components.schemas.Conflict)).toContain('"buffer"');
    const holdPost = doc.paths['/v1/holds'].post;
    expect(json(holdPost.requestBody)).toContain('all_free');
    expect(holdPost.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Hold' });
    expect(json(doc.components.schemas.Hold)).toContain('held_windows');
    expect(json(mergedEnvelope(doc, holdPost.responses['409']))).toContain('#/components/schemas/Conflict');
    expect(json(mergedEnvelope(doc, doc.paths['/v1/bookings'].post.responses['409']))).toContain('conflicts');
    expect(json(doc.paths['/v1/arbitration/evaluate'].post.responses['200'])).toContain('conflicts');
    const suggested = doc.paths['/public/schedules/{id}/meeting-types/{slug}/suggested-times'].get;
    expect(json(suggested.responses['200'])).toContain('start_local');
    // public refusals never document conflicts
    for (const [status, r] of Object.entries(suggested.responses as Record<string, { $ref?: string }>)) if (status !== '200') expect(json(mergedEnvelope(doc, r))).not.toContain('conflicts');
  });
  it('writes a nullable field so that null satisfies it (never allOf of a component and a null type; issue 37)', async () => {
    const doc = (await api('GET', '/v1/openapi.json')).body;
    const broken: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      const allOf = (node as { allOf?: { $ref?: string; type?: unknown }[] }).allOf;
      if (allOf?.some((s) => s.$ref) && allOf.some((s) => Array.isArray(s.type) && s.type.includes('null'))) broken.push(at);
      for (const [k, v] of Object.entries(node)) walk(v, `${at}/${k}`);
    };
    walk(doc, '#');
    expect(broken).toEqual([]);
    expect(doc.components.schemas.NullableTimestamp).toMatchObject({ type: ['string', 'null'], format: 'date-time' });
    expect(doc.components.schemas.Domain.properties.verified_at).toEqual({ $ref: '#/components/schemas/NullableTimestamp' });
    const audit = doc.paths['/v1/audit-log'].get.responses['200'].content['application/json'].schema.properties.entries.items.properties;
    expect([audit.start, audit.end]).toEqual([{ $ref: '#/components/schemas/NullableTimestamp' }, { $ref: '#/components/schemas/NullableTimestamp' }]);
    expect(Object.keys(doc.paths['/v1/public-scheduling/requester-identities'].post.responses)).toEqual(expect.arrayContaining(['200', '201']));
  });
});

type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  pattern?: string;
  enum?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
};
