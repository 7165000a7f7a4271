import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations } from '@/server/http/operations';
import { createFuzzer, SEED, type FuzzRequest } from './harness';
import { hostileArb, mutate, validArb, type Resolve, type Schema } from './schema';
import { buildTarget, documentOperations, type DocOp, type Target } from './targets';
import { allowLoopbackOutbound } from '../../helpers/outbound';

/**
 * Schema-driven fuzzing of EVERY operation in the served OpenAPI document
 * (so new endpoints are fuzzed as soon as they are registered): valid
 * requests built from the JSON Schemas of path, query and body, biased to the
 * real objects of a world so they reach the handlers, and mutations of them
 * (wrong types, missing and extra fields, boundary values, huge, unicode, NUL
 * and lone-surrogate strings, deep nesting), hostile path segments, stray
 * bodies, odd Idempotency-Key and X-Request-Id headers, and a mix of keys
 * (admin, foreign, limited, user-scoped, revoked, disabled, none, garbage).
 *
 * Replay: FUZZ_SEED=<seed printed below>. Size: FUZZ_RUNS_PER_OP (default 80).
 */
process.env.LOG_LEVEL = 'silent'; // mails of valid public submissions go to the log without SMTP_URL
const RUNS = Number(process.env.FUZZ_RUNS_PER_OP ?? 80);
const { doc, ops } = await documentOperations();
const byId = new Map(ops.map((o) => [o.operationId, o]));
// Every error answered must be one the document lists for that operation and status.
const fuzz = createFuzzer('operations.fuzz', {
  documented: (req, status) => {
    const op = byId.get(req.label);
    const template = op && new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    return op && template!.test(new URL(req.path, 'http://x').pathname) ? (op.codes[String(status)] ?? []) : null;
  },
});
console.log(`[fuzz] operations.fuzz: FUZZ_SEED=${SEED} runs per operation=${RUNS}`);

const resolve: Resolve = (ref) => (doc.components?.schemas ?? {})[ref.split('/').pop()!]!;
let t: Target;

// Generated webhook and CalDAV URLs are registered as before, without DNS lookups of made-up names
// (the guard resolves only when private addresses are refused; nothing here is delivered).
allowLoopbackOutbound();
beforeAll(async () => {
  t = await buildTarget(fuzz.ip);
  fuzz.captureServerLog();
}, 180_000);
afterAll(() => {
  delete process.env.LOG_LEVEL;
});

const headerArb: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { weight: 8, arbitrary: fc.constant({}) },
  { weight: 3, arbitrary: fc.constantFrom('fz-a', 'fz-b', 'fz-c').map((k) => ({ 'idempotency-key': k })) },
  { weight: 1, arbitrary: fc.constantFrom(' ', 'x'.repeat(256), 'x'.repeat(10_000), 'tab\there', '"quoted"', '\u007f').map((k) => ({ 'idempotency-key': k })) },
  { weight: 1, arbitrary: fc.constantFrom('a'.repeat(129), '../../x', '<script>', 'ok-id.1', '').map((v) => ({ 'x-request-id': v })) },
);

function serializeQuery(q: unknown): string {
  if (q === undefined) return '';
  if (q === null || typeof q !== 'object' || Array.isArray(q)) return `?${encodeURIComponent(JSON.stringify(q) ?? '')}`;
  const sp = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    for (const item of Array.isArray(v) ? v : [v]) sp.append(k, typeof item === 'string' ? item : JSON.stringify(item) ?? '');
  }
  const s = sp.toString();
  return s ? `?${s}` : '';
}

/** One generated request for an operation: valid, or with one mutation. */
function requestArb(op: DocOp): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path');
  const queryParams = op.params.filter((p) => p.in === 'query');
  const querySchema: Schema = {
    type: 'object',
    properties: Object.fromEntries(queryParams.map((p) => [p.name, p.schema])),
    required: queryParams.filter((p) => p.required).map((p) => p.name),
  };
  const modes = ['valid', 'valid', 'valid'];
  if (op.body) modes.push('body', 'body', 'body', 'body');
  if (queryParams.length) modes.push('query', 'query');
  if (!op.body && op.method !== 'GET') modes.push('stray-body');
  return fc
    .record({
      segments: fc.tuple(...pathParams.map((p) => t.segmentArb(op.path, p.name))),
      query: queryParams.length ? validArb(querySchema, t.hints, resolve) : fc.constant(undefined),
      body: op.body ? validArb(op.body, t.hints, resolve) : fc.constant(undefined),
      key: t.authArb(op),
      headers: headerArb,
      mode: fc.constantFrom(...modes),
    })
    .chain((r) => {
      let i = 0;
      const path = op.path.replace(/\{[^}]+\}/g, () => r.segments[i++]);
      const base: FuzzRequest = { label: op.operationId, method: op.method, path: path + serializeQuery(r.query), key: r.key, headers: r.headers, body: r.body };
      if (r.mode === 'body') return mutate(r.body, op.body, resolve).map((m) => ({ ...base, body: m.value, mutation: m.mutation }));
      if (r.mode === 'query') return mutate(r.query, querySchema, resolve).map((m) => ({ ...base, path: path + serializeQuery(m.value), mutation: `query ${m.mutation}` }));
      if (r.mode === 'stray-body') return hostileArb.map((v) => ({ ...base, body: v, mutation: 'stray body' }));
      return fc.constant(base);
    });
}

describe('fuzz: every operation of /v1/openapi.json', () => {
  it('the served document lists every registered operation', () => {
    expect(ops.map((o) => o.operationId).sort()).toEqual(operations.map((o) => o.operationId).sort());
  });

  ops.forEach((op, index) => {
    it(`${op.operationId}: ${op.method} ${op.path}`, async () => {
      await fc.assert(
        fc.asyncProperty(requestArb(op), async (req) => {
          await fuzz.send(req);
        }),
        { numRuns: RUNS, seed: SEED + index, endOnFailure: true },
      );
    }, 300_000);
  });

  it('every response kept the invariants (status < 500, the SPEC envelope on 4xx with a documented code, Bearer on 401, no ids in /public)', () => {
    const violations = fuzz.finish();
    expect(violations).toEqual([]);
    expect(fuzz.generated).toBe(ops.length * RUNS);
  });
});
