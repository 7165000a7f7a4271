import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFuzzer, HOSTILE_SEGMENTS, SEED, type FuzzRequest } from './harness';
import { validArb, type Resolve } from './schema';
import { buildTarget, documentOperations, type DocOp, type Target } from './targets';

/**
 * Transport-level fuzzing of every operation of the served OpenAPI document
 * plus the /public surface outside it (the contact-verification page, the
 * catch-alls): malformed JSON, wrong content types, odd and huge headers,
 * path injection (`..`, %2F, %00, very long and unicode ids), random
 * methods, bad credentials. Same invariants as operations.fuzz.test.ts.
 *
 * Replay: FUZZ_SEED=<seed printed below>. Size: FUZZ_TRANSPORT_RUNS (runs per family, default 320).
 */
process.env.LOG_LEVEL = 'silent';
const RUNS = Number(process.env.FUZZ_TRANSPORT_RUNS ?? 320);
const fuzz = createFuzzer('transport.fuzz');
console.log(`[fuzz] transport.fuzz: FUZZ_SEED=${SEED} runs per family=${RUNS}`);

const { doc, ops } = await documentOperations();
const resolve: Resolve = (ref) => (doc.components?.schemas ?? {})[ref.split('/').pop()!]!;
const withBody = ops.filter((o) => o.method !== 'GET');
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
let t: Target;

beforeAll(async () => {
  t = await buildTarget(fuzz.ip);
  fuzz.captureServerLog();
}, 180_000);
afterAll(() => {
  delete process.env.LOG_LEVEL;
});

/** A concrete path for an operation, its parameters filled with real ids of the world. */
const pathArb = (op: DocOp) => {
  const names = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  return fc.tuple(...names.map((n) => t.segmentArb(op.path, n))).map((segs) => {
    let i = 0;
    return op.path.replace(/\{[^}]+\}/g, () => segs[i++]);
  });
};
const opArb = (list: DocOp[]) => fc.constantFrom(...list);
const keyFor = (op: DocOp) => (op.path.startsWith('/public') ? null : t.keys.admins[0]);
const validBody = (op: DocOp) => (op.body ? validArb(op.body, t.hints, resolve) : fc.constant({}));

const MALFORMED: (string | Uint8Array)[] = [
  '{', '}', '{"a":', '{"a":1,}', "{'a':1}", '{"a":NaN}', '{"a":Infinity}', '{"a":-Infinity}', '{"a":undefined}', '[1,2', '"unterminated', '{"a":"\u0001"}',
  '{"a":1}garbage', '{"a":1}{"b":2}', '\uFEFF{}', '/* c */{}', '{"a":1}//', 'nul\u0000l', '\u0000', '{"a":"\\ud800"}', '{"a":"\\u0000"}', '{"a":"\\uZZZZ"}',
  '1e400', '-', '+1', '01', '.5', 'tru', 'null', 'true', '[]', '"str"', '0', '1'.padEnd(5000, '0'), '-1'.padEnd(400, '9') + 'e-400',
  '['.repeat(100_000) + ']'.repeat(100_000), '{"a":'.repeat(40_000) + '1' + '}'.repeat(40_000), '['.repeat(50_000),
  new Uint8Array([0xff, 0xfe, 0x7b, 0x7d]), new Uint8Array([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x28, 0x22, 0x7d]), new Uint8Array([0xed, 0xa0, 0x80]),
  Buffer.from('{"name":"x","priority":1}', 'utf16le'), new Uint8Array(0),
];

const CONTENT_TYPES = [
  '', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=xyz', 'application/json; charset=utf-16', 'application/json; charset=latin1',
  'application/vnd.api+json', 'APPLICATION/JSON', 'application/json;;;', 'application/jsonp', 'application/merge-patch+json', '*/*', 'garbage', ' application/json ',
  'application/xml', 'text/json', 'application/json, text/plain', 'application/json; boundary=' + 'x'.repeat(5000), '+json',
];

const AUTHORIZATIONS = (): string[] => [
  'Bearer ' + 'a'.repeat(100_000), 'Bearer ak_' + 'x'.repeat(8_000), `Bearer  ${t.keys.admins[1]}`, `bearer ${t.keys.admins[1]}`, `BEARER ${t.keys.admins[1]}`,
  `Bearer ${t.keys.admins[1]} extra`, `Bearer ${t.keys.admins[1]}\t`, `Bearer ${t.keys.admins[1]},Bearer ${t.keys.foreign}`, 'Basic dXNlcjpwYXNz', 'Bearer', 'Bearer ',
  'Token ak_x', ', ,', `Bearer ${t.keys.admins[1]}x`, `Bearer ${t.keys.admins[1].slice(0, -1)}`, `Bearer ${t.keys.admins[1].toUpperCase()}`, 'Bearer ak_', 'Bearer rc_',
  `Bearer ${t.world.credential}`, 'Bearer pt_' + 'a'.repeat(43), 'Bearer ak_%00', 'Bearer ak_\\u0000', "Bearer ak_' OR '1'='1", 'Bearer ' + '!#$%&*+-.^_`|~'.repeat(20),
];

const ODD_HEADERS = (): fc.Arbitrary<Record<string, string>> =>
  fc.oneof(
    fc.constantFrom(...AUTHORIZATIONS()).map((authorization) => ({ authorization })),
    fc.constantFrom('', ' ', 'x'.repeat(256), 'x'.repeat(50_000), '\t', 'key with spaces', '{"json":true}').map((k) => ({ 'idempotency-key': k })),
    fc.constantFrom('', 'x'.repeat(129), 'x'.repeat(20_000), '../../etc', 'a b', 'ok-1').map((v) => ({ 'x-request-id': v })),
    fc.constantFrom('evil.example', 'x'.repeat(3000), 'a b', '[::1]:99999', '').map((v) => ({ 'x-forwarded-host': v, 'x-forwarded-proto': 'javascript' })),
    fc.constantFrom('*/*', 'text/html', 'application/xml', 'x'.repeat(10_000)).map((accept) => ({ accept })),
    fc.constant(Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`x-fz-${i}`, 'v'.repeat(100)]))),
    fc.constantFrom('gzip', 'br', 'identity', 'chunked').map((v) => ({ 'content-encoding': v })),
  );

const PATH_TRICKS = ['', '/', '//', '/..', '/../..', '/%2e%2e', '/%2F', '/.', ';x=1', '%00', '/%00', '/x'.repeat(200), '/' + 'y'.repeat(20_000), '?%', '?a=%zz', '?owner_email=a@b.c&owner_email=x', '?__proto__=1&constructor=2', '?a[b]=1', '?' + 'q='.repeat(5000), '#frag'];

/** The families, each a fast-check property over generated requests. */
const families: [string, fc.Arbitrary<FuzzRequest>][] = [];
const family = (name: string, arb: () => fc.Arbitrary<FuzzRequest>) => families.push([name, fc.constant(null).chain(arb)]);

family('malformed-json', () =>
  fc.tuple(opArb(withBody), fc.oneof(fc.constantFrom(...MALFORMED), opArb(withBody).chain(validBody).chain((b) => fc.nat({ max: 400 }).map((n) => JSON.stringify(b).slice(0, n)))), fc.boolean())
    .chain(([op, raw, typed]) =>
      pathArb(op).map((path) => ({ label: 'malformed-json', method: op.method, path, key: keyFor(op), rawBody: raw, headers: typed ? { 'content-type': 'application/json' } : ({} as Record<string, string>) })),
    ),
);
family('content-type', () =>
  opArb(withBody).chain((op) =>
    fc.tuple(pathArb(op), validBody(op), fc.constantFrom(...CONTENT_TYPES), fc.constantFrom('json', 'form', 'xml')).map(([path, body, type, shape]) => ({
      label: 'content-type',
      method: op.method,
      path,
      key: keyFor(op),
      rawBody: shape === 'json' ? JSON.stringify(body) : shape === 'form' ? new URLSearchParams(Object.entries(body as object).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)])).toString() : '<a>1</a>',
      headers: type ? { 'content-type': type } : ({} as Record<string, string>),
    })),
  ),
);
family('odd-headers', () =>
  opArb(ops).chain((op) =>
    fc.tuple(pathArb(op), validBody(op), ODD_HEADERS()).map(([path, body, headers]) => ({
      label: 'odd-headers',
      method: op.method,
      path,
      key: headers.authorization ? undefined : keyFor(op),
      headers,
      body: op.method === 'GET' ? undefined : body,
    })),
  ),
);
family('path-injection', () =>
  opArb(ops).chain((op) =>
    fc.tuple(pathArb(op), fc.constantFrom(...PATH_TRICKS), fc.constantFrom(...HOSTILE_SEGMENTS), fc.nat({ max: 3 })).map(([path, trick, seg, where]) => {
      const parts = path.split('/');
      if (where === 1 && parts.length > 2) parts[parts.length - 1] = seg;
      if (where === 2) parts.splice(2, 0, seg);
      const p = parts.join('/') + (where === 3 ? '' : trick);
      return { label: 'path-injection', method: op.method, path: where === 0 ? p.replace(/[^/?]+(?=\?|$)/, (s) => s.toUpperCase()) : p, key: keyFor(op), body: op.method === 'GET' ? undefined : {} };
    }),
  ),
);
family('random-method', () =>
  fc.tuple(opArb(ops), fc.constantFrom(...METHODS), fc.boolean()).chain(([op, method, key]) =>
    pathArb(op).map((path) => ({ label: 'random-method', method, path, key: key ? t.keys.admins[2] : null, body: method === 'GET' ? undefined : { x: 1 } })),
  ),
);
family('bad-credentials', () =>
  fc.tuple(opArb(ops.filter((o) => o.security.some((s) => 'apiKey' in (s as object)))), fc.constantFrom(...AUTHORIZATIONS(), t.keys.revoked, t.keys.disabled, t.keys.foreign, t.keys.limited, t.keys.userScoped)).chain(([op, cred]) =>
    fc.tuple(pathArb(op), validBody(op)).map(([path, body]) => ({
      label: 'bad-credentials',
      method: op.method,
      path,
      headers: { authorization: cred.includes(' ') || cred.startsWith(',') ? cred : `Bearer ${cred}` },
      body: op.method === 'GET' ? undefined : body,
    })),
  ),
);
family('public-surface', () => {
  const w = t.foreignWorld;
  const tokens = [w.verificationToken, w.statusToken, 'cv_' + 'a'.repeat(43), 'cv_', ...HOSTILE_SEGMENTS].filter((x): x is string => Boolean(x));
  const paths = [
    fc.constantFrom(...tokens).map((tok) => `/public/contact-verifications/${tok}/confirm`),
    fc.constantFrom(...tokens).map((tok) => `/public/booking-proposals/${tok}`),
    fc.constantFrom(...HOSTILE_SEGMENTS).map((s) => `/public/${s}/${s}`),
    fc.constantFrom(`/public/schedules/${w.alias}`, `/public/schedules/${w.alias}/meeting-types/${w.slug}/suggested-times?duration_minutes=30`, `/public/schedules/${w.alias}/booking-proposals`),
  ];
  return fc
    .tuple(fc.oneof(...paths), fc.constantFrom(...METHODS), fc.constantFrom<string | null>(null, w.credential, 'rc_' + 'z'.repeat(43), t.keys.admins[3]), fc.constantFrom('198.51.100.7', 'unknown', '::1', '', 'x'.repeat(300)))
    .map(([path, method, key, ip]) => ({ label: 'public-surface', method, path, key, ip, body: method === 'GET' ? undefined : { requester_contact: { email: 'r@example.com' }, attendees: [], message: 'hi' } }));
});

describe('fuzz: transport (malformed input, content types, headers, paths, methods, credentials, the /public surface)', () => {
  families.forEach(([name, arb], index) => {
    it(name, async () => {
      await fc.assert(
        fc.asyncProperty(arb, async (req) => {
          await fuzz.send(req);
        }),
        { numRuns: RUNS, seed: SEED + 1000 + index, endOnFailure: true },
      );
    }, 300_000);
  });

  it('every response kept the invariants (status < 500, the SPEC envelope on 4xx, Bearer on 401, no ids in /public)', () => {
    const violations = fuzz.finish();
    expect(violations).toEqual([]);
    expect(fuzz.generated).toBe(families.length * RUNS);
  });
});
