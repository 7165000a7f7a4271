import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { getConfig } from '@/server/config';
import { getDb } from '@/server/db';
import { authenticateApiKey } from '@/server/domain/apiKeyAuth';
import { isDomainError } from '@/server/domain/errors';
import { readJsonBody } from '@/server/http/body';
import { applyRateLimits, setRateLimitHeaders } from '@/server/http/limits';
import type { RateLimitResult } from '@/server/rateLimit';
import { clientIpOf } from '@/server/request';
import { renameSpan, tracingEnabled } from '@/server/observability/tracing';
import { createMcpServer } from './server';
import { resourceTarget } from './resources';
import { MCP_TOOLS } from './tools';

/**
 * MCP over Streamable HTTP, stateless: every POST carries the agent's `ak_`
 * bearer key and gets its own server and transport (JSON responses, no
 * session, no server-sent stream). The key is checked here so a client learns
 * at `initialize` that it is wrong (a refusal counts against the per-IP limit,
 * as a failed authentication does on REST); each tool call is then
 * authenticated, limited and audited again by the REST wrapper it runs through.
 *
 * Limits as on REST (docs/agents.md "MCP"): the body is read with the REST
 * cap (MAX_BODY_BYTES, 413), and every message a REST operation does not run
 * (initialize, tools/list, ping, notifications, an unknown tool) is charged to
 * the global per-IP budget here, as a /v1 request without a per-key policy is;
 * a call of a known tool is charged once, by the wrapper it runs through (per
 * key or per IP, as its REST operation is).
 */
export async function handleMcpHttp(req: Request, requestId?: string): Promise<Response> {
  const config = getConfig();
  const clientIp = clientIpOf(req, config.trustProxy);
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get('authorization') ?? '');
  const key = m?.[1] ?? null;
  let refusal: { code: string; message: string } | null = null;
  try {
    await authenticateApiKey(await getDb(), key, new Date());
  } catch (err) {
    if (!isDomainError(err)) throw err;
    refusal = { code: err.code, message: err.message };
  }
  if (refusal) {
    const headers = new Headers({ 'www-authenticate': `Bearer error="invalid_token", error_description="${refusal.code}"` });
    const limit = await chargeIp(clientIp, 1);
    if (!limit.success) return rateLimited(limit, headers);
    setRateLimitHeaders(headers, limit);
    return jsonRpcError(401, -32001, `${refusal.code}: send the agent key as Authorization: Bearer ak_... (${refusal.message})`, headers);
  }

  let body: unknown;
  try {
    body = await readJsonBody(req, config.maxBodyBytes);
  } catch (err) {
    if (!isDomainError(err)) throw err;
    // The body was not read (or not all of it): charge the request as one message.
    const limit = await chargeIp(clientIp, 1);
    if (!limit.success) return rateLimited(limit);
    const headers = new Headers();
    setRateLimitHeaders(headers, limit);
    if (err.code === 'payload_too_large') return jsonRpcError(413, -32000, `payload_too_large: ${err.message}`, headers);
    if (err.code === 'unsupported_media_type') return jsonRpcError(415, -32000, `unsupported_media_type: ${err.message}`, headers);
    return jsonRpcError(400, -32700, `Parse error: ${err.message}`, headers);
  }

  if (tracingEnabled()) renameSpan(`mcp ${mcpProcedure(body)}`);
  const uncharged = messagesOutsideTools(body);
  let limit: RateLimitResult | null = null;
  if (uncharged > 0) {
    limit = await chargeIp(clientIp, uncharged);
    if (!limit.success) return rateLimited(limit);
  }

  const server = createMcpServer({ bearer: key, forwardHeaders: req.headers, requestId });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    const res = await transport.handleRequest(req, { parsedBody: body });
    res.headers.set('cache-control', 'no-store');
    if (limit) setRateLimitHeaders(res.headers, limit);
    return res;
  } finally {
    void server.close();
  }
}

const TOOL_NAMES = new Set(MCP_TOOLS.map((t) => t.name));

/**
 * How many messages of a POST body no REST operation will run, so the
 * transport charges them itself: everything but `tools/call` of a known tool,
 * `resources/list` (it runs list_meeting_classes' operation) and `resources/read`
 * of a resource this server serves (at least one: an empty batch or a body that
 * is no message is a request too).
 */
function messagesOutsideTools(body: unknown): number {
  const messages = Array.isArray(body) ? body : [body];
  const outside = messages.filter((msg) => !(msg && typeof msg === 'object' && runsOperation(msg as { method?: unknown; params?: { name?: unknown; uri?: unknown } }))).length;
  return messages.length === 0 ? 1 : outside;
}

function runsOperation({ method, params }: { method?: unknown; params?: { name?: unknown; uri?: unknown } }): boolean {
  if (method === 'tools/call') return typeof params?.name === 'string' && TOOL_NAMES.has(params.name);
  if (method === 'resources/list') return true;
  if (method !== 'resources/read' || typeof params?.uri !== 'string') return false;
  try {
    return resourceTarget(params.uri) !== null;
  } catch {
    return false; // refused before any operation runs (a filter it does not take)
  }
}

/** What names an MCP request's span: its method, and the tool of a call (`tools/call create_booking`); `batch` for several messages. */
function mcpProcedure(body: unknown): string {
  if (Array.isArray(body)) return 'batch';
  const { method, params } = (body && typeof body === 'object' ? body : {}) as { method?: unknown; params?: { name?: unknown } };
  if (typeof method !== 'string' || !/^[\w/.-]{1,64}$/.test(method)) return 'unknown';
  const tool = method === 'tools/call' && typeof params?.name === 'string' && TOOL_NAMES.has(params.name) ? ` ${params.name}` : '';
  return method + tool;
}

/** The global per-IP budget, once per message; the first denial decides. */
async function chargeIp(clientIp: string, messages: number): Promise<RateLimitResult> {
  let last!: RateLimitResult;
  for (let i = 0; i < messages; i++) {
    last = await applyRateLimits({ kind: 'ip', clientIp });
    if (!last.success) break;
  }
  return last;
}

function rateLimited(limit: RateLimitResult, headers = new Headers()): Response {
  setRateLimitHeaders(headers, limit);
  return jsonRpcError(429, -32001, 'rate_limited: retry after Retry-After seconds', headers);
}

function jsonRpcError(status: number, code: number, message: string, headers: Headers): Response {
  headers.set('cache-control', 'no-store');
  return Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status, headers });
}
