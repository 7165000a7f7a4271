import { getDb, type Db } from '@/server/db';
import { resolveOwnerEmail, resolveOwnerEmails, requirePermission, type AgentActor } from '@/server/domain/access';
import { writeDeniedAudit } from '@/server/domain/claims/audit';
import { authenticateApiKey } from '@/server/domain/apiKeyAuth';
import { GateRefusal, type ClaimOperation, type GateOwner } from '@/server/domain/claims/claimRunner';
import { DomainError } from '@/server/domain/errors';
import { ensureCalendarsUsable } from '@/server/domain/calendars/mirror';
import { requestIdOf } from './requestId';
import { drainNotifications, type NotificationItem } from '@/server/domain/notificationService';
import { getConfig } from '@/server/config';
import { log, logContext, runWithLogContext, type LogContext } from '@/server/log';
import { metrics, recordRequest, secondsSince } from '@/server/observability/metrics';
import { readJsonBody } from './body';
import { errorBody, jsonResponse, jsonTextResponse, statusOf, toDomainError, validationError, type ErrorBody } from './envelope';
import { beginIdempotent, completeIdempotent, redact, releaseIdempotent, requestFingerprint, runClaimWithAnswer, validIdempotencyKey } from './idempotency';
import { HTTP_METHODS, isMutating, type AnyOperation, type HandlerResult, type HttpMethod } from './operation';
import { applyRateLimits, setRateLimitHeaders, type LimitPlan } from './limits';
import { clientIpOf, publicBaseUrl } from '@/server/request';
import { fieldLocator } from './fieldPaths';
import { setSpanAttributes, traceRequest, tracingEnabled } from '@/server/observability/tracing';

type RouteContext = { params: Promise<Record<string, string | string[] | undefined>> };
export type RouteHandler = ((req: Request, ctx: RouteContext) => Promise<Response>) & { operation?: AnyOperation };


/**
 * Bind operations to a route file. Every method is exported, so a method the
 * path does not support answers 405 in our envelope (not Next's empty body):
 *   export const { GET, POST, PUT, PATCH, DELETE } = routes({ POST: createAgent });
 */
export function routes(ops: Partial<Record<HttpMethod, AnyOperation>>, opts: { alsoServed?: HttpMethod[] } = {}): Record<HttpMethod, RouteHandler> {
  // `alsoServed`: methods the route file answers itself (e.g. an HTML page), listed in Allow.
  const allowed = HTTP_METHODS.filter((m) => ops[m] || opts.alsoServed?.includes(m));
  const out = {} as Record<HttpMethod, RouteHandler>;
  for (const method of HTTP_METHODS) {
    const op = ops[method];
    if (op) {
      const h: RouteHandler = (req, ctx) => (tracingEnabled() ? traced(req, op.path, () => runOperation(op, req, ctx)) : runOperation(op, req, ctx));
      h.operation = op;
      out[method] = h;
    } else {
      const route = Object.values(ops)[0]?.path;
      out[method] = (req) => {
        const run = () => transportError(req, route ?? '(unknown)', new DomainError('method_not_allowed', `${req.method} is not supported on this path`), { allow: allowed.join(', ') });
        return tracingEnabled() && route ? traced(req, route, run) : run();
      };
    }
  }
  return out;
}

/** Handlers for a catch-all route: every method answers 404 in the envelope. */
export function notFoundRoutes(): Record<HttpMethod, RouteHandler> {
  const h: RouteHandler = (req) => {
    const run = () => transportError(req, '(unmatched)', new DomainError('not_found', 'No such endpoint'));
    // Named by the catch-all, never by the path asked for (it may carry anything).
    return tracingEnabled() ? traced(req, new URL(req.url).pathname.startsWith('/public/') ? '/public/*' : '/v1/*', run) : run();
  };
  return Object.fromEntries(HTTP_METHODS.map((m) => [m, h])) as Record<HttpMethod, RouteHandler>;
}

/**
 * 404 (unknown path) and 405 (unsupported method) in the envelope, counted
 * against the global per-IP limit like any other request. An agent that
 * presented a valid key still gets its notification queue drained.
 */
async function transportError(req: Request, route: string, err: DomainError, extraHeaders: Record<string, string> = {}): Promise<Response> {
  const started = process.hrtime.bigint();
  const headers = baseHeaders(req);
  const ctx: LogContext = { request_id: headers.get('x-request-id')!, route, method: req.method };
  const res = await runWithLogContext(ctx, () => answerTransportError(req, err, headers, extraHeaders));
  recordRequest(route, req.method, res.status, secondsSince(started));
  return res;
}

async function answerTransportError(req: Request, err: DomainError, headers: Headers, extraHeaders: Record<string, string>): Promise<Response> {
  for (const [k, v] of Object.entries(extraHeaders)) headers.set(k, v);
  try {
    const limit = await applyRateLimits({ kind: 'ip', clientIp: clientIpOf(req, getConfig().trustProxy) });
    setRateLimitHeaders(headers, limit);
    if (!limit.success) return jsonResponse(429, { ...errorBody(RATE_LIMITED()), pending_notifications: [] }, headers);
  } catch (thrown) {
    log.error('request failed', { err: thrown });
    return jsonResponse(500, { ...errorBody(toDomainError(thrown)), pending_notifications: [] }, headers);
  }
  let pending: NotificationItem[] = [];
  const bearer = bearerToken(req);
  if (bearer?.startsWith('ak_')) {
    try {
      const db = await getDb();
      pending = await drain(db, await authenticateApiKey(db, bearer, new Date()));
    } catch {
      // an invalid key changes nothing here: the path or method is what is wrong
    }
  }
  setSpanAttributes({ 'error.code': err.code, reason: err.code });
  return jsonResponse(statusOf(err), { ...errorBody(err), pending_notifications: pending }, headers);
}

const RATE_LIMITED = () => new DomainError('rate_limited', 'Rate limit exceeded; retry after the number of seconds in Retry-After');

/** X-Request-Id: the client's when well-formed, else the trace id when tracing (docs/operations.md "Traces"), else a new id. */
function baseHeaders(req: Request): Headers {
  return new Headers({
    'x-request-id': requestIdOf(req),
    'cache-control': 'no-store',
  });
}

/**
 * The request's span (server/observability/tracing.ts traceRequest), named `<METHOD> <route
 * template>` (`POST /v1/bookings`, `GET /public/booking-proposals/{token}`): never the path
 * itself, which may carry tokens. Its attributes: the route, the status, the request id
 * (linking the answer's X-Request-Id to the trace), the outcome (accepted, refused, error)
 * and the reason code of a refusal; runOperation adds the customer and agent.
 */
function traced(req: Request, route: string, run: () => Promise<Response>): Promise<Response> {
  return traceRequest(req, `${req.method} ${route}`, route, run);
}

/**
 * The request path of every /v1 and /public operation, in order: request id,
 * bearer auth, rate limit, permission, input parsing (JSON, zod), owner scope,
 * Idempotency-Key, the handler, and the error envelope with the agent's
 * pending notifications.
 */
async function runOperation(op: AnyOperation, req: Request, routeCtx: RouteContext): Promise<Response> {
  const started = process.hrtime.bigint();
  const headers = baseHeaders(req);
  // Every line logged while answering carries the request id and the route template (never the raw path).
  const ctx: LogContext = { request_id: headers.get('x-request-id')!, route: op.path, method: op.method };
  const res = await runWithLogContext(ctx, () => answerOperation(op, req, routeCtx, headers));
  const seconds = secondsSince(started);
  recordRequest(op.path, op.method, res.status, seconds);
  if (res.status >= 500 || seconds >= SLOW_REQUEST_SECONDS) log.warn('request answered', { ...ctx, status: res.status, duration_ms: Math.round(seconds * 1000) });
  return res;
}

/** Requests slower than this are logged (warn) with their duration; the histogram has every one. */
const SLOW_REQUEST_SECONDS = 2;

async function answerOperation(op: AnyOperation, req: Request, routeCtx: RouteContext, headers: Headers): Promise<Response> {
  const now = new Date();
  const requestId = headers.get('x-request-id')!;
  const config = getConfig();
  const url = new URL(req.url);
  const clientIp = clientIpOf(req, config.trustProxy);
  let db: Db | undefined;
  let actor: AgentActor | null = null;
  let idem: { recordId: string; redact: string[] } | null = null;

  try {
    db = await getDb();
    const bearer = bearerToken(req);

    // 1. authentication (its failure is answered after the rate limit, so key guessing is limited too)
    let authError: DomainError | null = null;
    if (op.auth === 'api_key') {
      try {
        actor = await authenticateApiKey(db, bearer, now);
        const ctx = logContext();
        if (ctx) {
          ctx.customer_id = actor.customerId;
          ctx.agent_id = actor.agentId;
        }
        setSpanAttributes({ 'customer.id': actor.customerId, 'agent.id': actor.agentId });
      } catch (err) {
        authError = toDomainError(err);
        if (authError.code === 'internal_error') throw err;
      }
    }

    // 2. rate limits: the operation's per-key policy, or the global per-IP limit plus the operation's own (server/http/limits.ts)
    const rawParams = ((await routeCtx.params) ?? {}) as Record<string, string>;
    const rl = op.rateLimit;
    const by = rl?.by;
    const opDb = db;
    const plan: LimitPlan =
      by === 'key' && actor
        ? { kind: 'key', policy: rl!.policy, keyId: actor.keyId }
        : {
            kind: 'ip',
            clientIp,
            policy: by === 'key' ? undefined : rl?.policy, // a failed authentication counts per IP only
            identify:
              typeof by === 'function'
                ? // path values that will fail validation (step 4) name nothing: only the per-IP limit applies
                  async () => (validPath(op, rawParams) ? by({ params: rawParams, clientIp, db: opDb }) : null)
                : async () => `ip:${clientIp}`,
          };
    const limit = await applyRateLimits(plan);
    setRateLimitHeaders(headers, limit);
    if (!limit.success) throw RATE_LIMITED();
    if (authError) throw authError;

    // 3. permission
    if (actor && op.permission) requirePermission(actor, op.permission);

    // 4. path and query
    const params = op.params ? parseOrThrow(op.params, rawParams, 'path') : undefined;
    const query = op.query ? parseOrThrow(op.query, Object.fromEntries(url.searchParams), 'query') : undefined;

    // 5. body
    const body = op.body ? parseOrThrow(op.body, await readJsonBody(req, config.maxBodyBytes), 'body') : undefined;
    const input = { body, query, params };

    // 6. owner scope
    const named = op.ownerEmails && actor ? op.ownerEmails(input) : undefined;
    const ownerEmails = named?.length ? resolveOwnerEmails(actor!, named) : [];
    const ownerEmail = !ownerEmails.length && op.ownerEmail && actor && !op.ownerless?.(input) ? resolveOwnerEmail(actor, op.ownerEmail(input)) : '';
    // The calendar gate: here, or (calendarGate 'claim') in the claim's own reads (runClaimWithAnswer).
    const gateOwner = ownerEmail && actor && op.calendarGate !== false ? { owner: { customerId: actor.customerId, email: ownerEmail }, now } : undefined;
    if (gateOwner && op.calendarGate !== 'claim') await ensureCalendarsUsable(db, gateOwner.owner, now);

    // 7. idempotency
    const idemKey = req.headers.get('idempotency-key');
    if (idemKey !== null && actor && op.idempotency !== false && isMutating(op.method)) {
      if (!validIdempotencyKey(idemKey)) {
        throw new DomainError('invalid_request', 'Idempotency-Key must be 1 to 255 visible ASCII characters');
      }
      const start = await beginIdempotent(
        db,
        { agentId: actor.agentId, method: op.method, path: url.pathname, key: idemKey },
        requestFingerprint(body, url.search),
        now,
      );
      if (start.kind === 'replay') {
        headers.set('idempotent-replayed', 'true');
        metrics().idempotentReplays.inc();
        return replayResponse(start.status, start.bodyText, headers, start.status >= 400 ? await drain(db, actor) : null);
      }
      idem = { recordId: start.recordId, redact: op.idempotency?.redact ?? [] };
    }

    // 8. the operation (a claiming one runs in a transaction the wrapper opens, which stores the answer)
    const stored: { status: number; text: string | null } = { status: op.success.status, text: null };
    const claim = async <T>(operation: ClaimOperation<T>, named?: string | GateOwner): Promise<T> => {
      // A pool's pick (ownerless: its email), or the owner an operation read first (a booking's owner): that owner's gate.
      const picked = typeof named === 'string' ? (actor ? { owner: { customerId: actor.customerId, email: named }, now } : undefined) : named;
      const gate = picked ?? (op.calendarGate === 'claim' ? gateOwner : undefined);
      const done = await runClaimWithAnswer(db!, operation, idem && { recordId: idem.recordId, status: op.success.status, redact: idem.redact }, gate);
      stored.text = done.text;
      return done.value;
    };
    const result: HandlerResult = await op.handler({
      ...input,
      req,
      db,
      now,
      requestId,
      actor,
      ownerEmail,
      ownerEmails,
      bearer,
      clientIp,
      baseUrl: publicBaseUrl(req, config.publicBaseUrl),
      idempotencyKey: idemKey,
      claim,
    } as never);
    const status = result.status ?? op.success.status;
    for (const [k, v] of Object.entries(result.headers ?? {})) headers.set(k, v);
    if (stored.text !== null && stored.status === status) return jsonTextResponse(status, stored.text, headers);
    if (idem) await completeIdempotent(db, idem.recordId, status, JSON.stringify(redact(result.body, idem.redact)));
    return jsonResponse(status, result.body, headers);
  } catch (caught) {
    // A refusal of the calendar gate run inside the claim is answered like any other, but frees the key.
    const gateRefused = caught instanceof GateRefusal;
    const thrown = gateRefused ? caught.refusal : caught;
    const err = toDomainError(thrown);
    const status = statusOf(err);
    setSpanAttributes({ 'error.code': err.code, reason: err.reason ?? err.code });
    if (status >= 500) log.error('request failed', { operation: op.operationId, err: thrown });
    if (err.code === 'IDEMPOTENCY_CONFLICT' || err.code === 'IDEMPOTENCY_IN_FLIGHT') metrics().idempotencyConflicts.inc({ code: err.code });
    const body: ErrorBody = errorBody(err, fieldLocator(op));
    // The agent's pending notifications are drained while the answer is stored (both are sent at once).
    const draining = db && actor && !(err.code.startsWith('permission_denied') || err.code === 'owner_scope_denied') ? drain(db, actor) : null;
    if (db && idem) {
      try {
        if (status >= 500 || status === 429 || gateRefused) await releaseIdempotent(db, idem.recordId);
        else await completeIdempotent(db, idem.recordId, status, JSON.stringify(body));
      } catch (storeErr) {
        log.error('idempotency bookkeeping failed', { err: storeErr });
      }
    }
    if (typeof err.extra?.retry_after_seconds === 'number') headers.set('retry-after', String(err.extra.retry_after_seconds));
    if (db && actor && (err.code.startsWith('permission_denied') || err.code === 'owner_scope_denied')) await auditDenied(db, actor, op, err, now);
    if (status === 401) headers.set('www-authenticate', `Bearer error="invalid_token", error_description="${err.code}"`);
    const pending = draining ? await draining : db && actor ? await drain(db, actor) : [];
    return jsonResponse(status, { ...body, pending_notifications: pending }, headers);
  }
}

function validPath(op: AnyOperation, raw: Record<string, string>): boolean {
  return !unstorableText(raw, 'path') && (!op.params || op.params.safeParse(raw).success);
}

function parseOrThrow<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false; error: never } }, value: unknown, where: 'body' | 'query' | 'path'): T {
  const bad = unstorableText(value, where);
  if (bad) {
    throw new DomainError('invalid_request', `Invalid ${bad}: text may not contain U+0000 or unpaired surrogates`, {
      details: { fields: [{ path: bad, message: 'contains U+0000 or an unpaired surrogate', code: 'invalid_string' }] },
    });
  }
  const r = schema.safeParse(value);
  if (!r.success) throw validationError(where, r.error);
  return r.data;
}

/**
 * Path of the first string (key or value) PostgreSQL cannot store as sent:
 * U+0000 is refused by PostgreSQL, and unpaired surrogates would be silently
 * replaced (so two different names could collide). Null when all is well.
 */
function unstorableText(value: unknown, path: string, depth = 0): string | null {
  if (typeof value === 'string') return value.includes('\u0000') || !value.isWellFormed() ? path : null;
  if (depth > 64 || value === null || typeof value !== 'object') return null;
  for (const [k, v] of Object.entries(value)) {
    const child = `${path}.${k}`;
    if (unstorableText(k, child, depth + 1) || unstorableText(v, child, depth + 1)) return child;
  }
  return null;
}

function bearerToken(req: Request): string | null {
  const h = req.headers.get('authorization');
  if (!h) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(h);
  return m ? m[1] : null;
}

async function drain(db: Db, actor: AgentActor): Promise<NotificationItem[]> {
  try {
    return await drainNotifications(db, actor.agentId);
  } catch (err) {
    log.error('draining notifications failed', { agentId: actor.agentId, err });
    return [];
  }
}

/**
 * A stored response, byte for byte. Error bodies were stored without
 * `pending_notifications`; the current queue is appended (never replayed).
 */
function replayResponse(status: number, bodyText: string, headers: Headers, pending: NotificationItem[] | null): Response {
  headers.set('content-type', 'application/json; charset=utf-8');
  const text = pending ? `${bodyText.slice(0, bodyText.lastIndexOf('}'))},"pending_notifications":${JSON.stringify(pending)}}` : bodyText;
  return new Response(text, { status, headers });
}

/** A refusal of permission or owner scope leaves an audit row (outcome denied), so an owner sees what an agent tried (docs/api.md "Audit log"). */
async function auditDenied(db: Db, actor: AgentActor, op: AnyOperation, err: DomainError, now: Date): Promise<void> {
  try {
    await writeDeniedAudit(db, {
      customerId: actor.customerId,
      agentId: actor.agentId,
      code: err.code,
      ownerEmail: err.ownerEmail,
      details: { operation: op.operationId, method: op.method, path: op.path },
      at: now,
    });
  } catch (auditErr) {
    log.error('denied-request audit failed', { err: auditErr });
  }
}
