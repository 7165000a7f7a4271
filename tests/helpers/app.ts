import { getDb, getDbHandle } from '@/server/db';
import { bootstrapCustomer } from '@/server/domain/customerService';
import { newId } from '@/server/domain/ids';
import { OpenApiValidator, OpenApiViolationError, isDocumentedArea, type Answer } from './openapiValidator';
import { listRouteFiles, matchRoute } from './routes';
import { registerSecretsIn } from './secretRegistry';
import { timeTwinViolations } from './timeTwins';

/**
 * Calls the real route handlers in-process with real Request objects: the
 * whole wrapper (auth, limits, parsing, idempotency, envelope) runs exactly as
 * under `next start`, without a socket. Needed because the embedded PGlite is
 * single-process.
 */
const routeFiles = listRouteFiles();
const moduleCache = new Map<string, Promise<Record<string, unknown>>>();

export type ApiResponse<T = any> = { status: number; headers: Headers; body: T; text: string };
export type ApiOptions = {
  key?: string | null;
  body?: unknown;
  /** Sent verbatim (no JSON encoding), for malformed-input tests. */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
  idempotencyKey?: string;
  ip?: string;
  /**
   * Whether the body's `password`/`secret` fields are secrets this test made, for the run's log
   * scan (default true). The fuzz harness says no: it puts public attack strings and dates from
   * its corpus there ('<script>alert(1)</script>', '2030-01-01', ...), which other tests log as
   * ordinary data, so registering them failed the scan by chance.
   */
  bodySecrets?: boolean;
};

/**
 * Every answer api() receives under /v1 and /public is checked against the OpenAPI document the
 * service serves (tests/helpers/openapiValidator.ts): a departure fails the test at the call.
 * OPENAPI_VIOLATIONS_LOG=<file> records them there (one JSON line each) instead, to list every
 * departure of a whole run at once (docs/architecture.md).
 */
let validator: Promise<OpenApiValidator> | undefined;
function servedValidator(): Promise<OpenApiValidator> {
  validator ??= callRoute('GET', '/v1/openapi.json', {}).then(({ body }) => new OpenApiValidator(body));
  return validator;
}

export async function checkAnswer(answer: Answer): Promise<void> {
  if (!isDocumentedArea(answer.path)) return;
  const twins = timeTwinViolations(answer.body);
  if (twins.length) throw new Error(`time twins of ${answer.method} ${answer.path} break the time oracle: ${twins.join('; ')}`);
  const violations = (await servedValidator()).check(answer);
  if (violations.length === 0) return;
  const log = process.env.OPENAPI_VIOLATIONS_LOG;
  if (log) {
    // vitest only here: tests/integration/mcp/seedStdio.ts runs api() outside the runner
    const [{ appendFileSync }, { expect }] = await Promise.all([import('node:fs'), import('vitest')]);
    const { currentTestName, testPath } = expect.getState();
    appendFileSync(log, violations.map((v) => `${JSON.stringify({ ...v, test: currentTestName, file: testPath })}\n`).join(''));
    return;
  }
  throw new OpenApiViolationError(violations);
}

export async function api<T = any>(method: string, pathAndQuery: string, opts: ApiOptions = {}): Promise<ApiResponse<T>> {
  const res = await callRoute<T>(method, pathAndQuery, opts);
  await checkAnswer({ method, path: new URL(pathAndQuery, 'http://scheduler.test').pathname, status: res.status, contentType: res.headers.get('content-type'), body: res.body });
  return res;
}

async function callRoute<T>(method: string, pathAndQuery: string, opts: ApiOptions): Promise<ApiResponse<T>> {
  const url = new URL(pathAndQuery, 'http://scheduler.test');
  const match = matchRoute(routeFiles, url.pathname);
  if (!match) throw new Error(`no route file for ${url.pathname}`);
  let mod = moduleCache.get(match.route.file);
  if (!mod) moduleCache.set(match.route.file, (mod = import(match.route.file)));
  const handler = (await mod)[method] as ((req: Request, ctx: unknown) => Promise<Response>) | undefined;
  if (!handler) throw new Error(`${match.route.file} exports no ${method}`);

  const headers = new Headers(opts.headers);
  if (opts.key) headers.set('authorization', `Bearer ${opts.key}`);
  if (opts.idempotencyKey) headers.set('idempotency-key', opts.idempotencyKey);
  headers.set('x-forwarded-for', opts.ip ?? '203.0.113.10');
  let body: BodyInit | undefined;
  if (opts.rawBody !== undefined) body = opts.rawBody as BodyInit;
  else if (opts.body !== undefined) {
    if (opts.bodySecrets !== false) registerSecretsIn(opts.body); // the run's log scan looks for them (tests/helpers/logScan.ts)
    body = JSON.stringify(opts.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  const req = new Request(url, { method, headers, body });
  const res = await handler(req, { params: Promise.resolve(match.params) });
  const text = await res.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.status, headers: res.headers, body: parsed as T, text };
}

/** Which database this test run uses. */
export async function driver(): Promise<'postgres' | 'pglite'> {
  return (await getDbHandle()).driver;
}

export type TestCustomer = { customerId: string; agentId: string; key: string };

/** A fresh customer with an all-powerful `org:*` admin key; tests stay isolated by tenancy. */
export async function newCustomer(name = `Test ${newId().slice(-6)}`): Promise<TestCustomer> {
  const b = await bootstrapCustomer(await getDb(), name);
  return { customerId: b.customer_id, agentId: b.agent_id, key: b.api_key };
}

/** A unique email for this run. */
export function uniqueEmail(prefix = 'owner'): string {
  return `${prefix}.${newId().slice(-12)}@example.com`;
}

/** An agent with exactly these permissions and scope; returns its id and a fresh key. */
export async function newAgent(admin: TestCustomer, permissions: string[], ownerScope = 'org:*'): Promise<{ agentId: string; key: string }> {
  const created = await api('POST', '/v1/agents', { key: admin.key, body: { name: 'test agent', owner_scope: ownerScope, permissions } });
  if (created.status !== 201) throw new Error(`agent creation failed: ${created.text}`);
  const key = await api('POST', `/v1/agents/${created.body.agent_id}/keys`, { key: admin.key, body: {} });
  if (key.status !== 201) throw new Error(`key creation failed: ${key.text}`);
  return { agentId: created.body.agent_id, key: key.body.api_key };
}

/** Assert the error envelope of docs/api.md "3. Errors"; returns the error object. */
export function expectEnvelope(res: ApiResponse, status: number, code: string) {
  if (res.status !== status || res.body?.error?.code !== code || !Array.isArray(res.body?.pending_notifications) || typeof res.body?.error?.message !== 'string') {
    throw new Error(`expected ${status} ${code} in the error envelope, got ${res.status}: ${res.text}`);
  }
  return res.body.error as { code: string; message: string; reason?: string; details?: any };
}
