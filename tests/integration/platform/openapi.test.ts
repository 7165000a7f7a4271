import { describe, expect, it } from 'vitest';
import { HTTP_METHODS, type AnyOperation } from '@/server/http/operation';
import { operations } from '@/server/http/operations';
import { api } from '../../helpers/app';
import { listRouteFiles, openApiPathOf } from '../../helpers/routes';

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
        .map(([status, r]) => `${status} ${r.description}`)
        .join('\n');
      for (const code of op.errors) expect(described, `${op.operationId} should document ${code}`).toContain(code);
    }
    const ownerPost = res.body.paths['/v1/owners'].post;
    expect(ownerPost.responses['401'].description).toContain('unknown_api_key');
    expect(ownerPost.responses['403'].description).toContain('permission_denied:<perm>');
    expect(ownerPost.responses['429'].description).toContain('rate_limited');
    expect(ownerPost.responses['422'].description).toContain('IDEMPOTENCY_CONFLICT');
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
});
