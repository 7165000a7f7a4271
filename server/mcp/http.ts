import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { getConfig } from '@/server/config';
import { getDb } from '@/server/db';
import { authenticateApiKey } from '@/server/domain/apiKeyAuth';
import { isDomainError } from '@/server/domain/errors';
import { applyRateLimits, setRateLimitHeaders } from '@/server/http/limits';
import { clientIpOf } from '@/server/request';
import { createMcpServer } from './server';

/**
 * MCP over Streamable HTTP, stateless: every POST carries the agent's `ak_`
 * bearer key and gets its own server and transport (JSON responses, no
 * session, no server-sent stream). The key is checked here so a client learns
 * at `initialize` that it is wrong (a refusal counts against the per-IP limit,
 * as a failed authentication does on REST); each tool call is then
 * authenticated, limited and audited again by the REST wrapper it runs through.
 */
export async function handleMcpHttp(req: Request): Promise<Response> {
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
    const headers = new Headers({ 'cache-control': 'no-store', 'www-authenticate': `Bearer error="invalid_token", error_description="${refusal.code}"` });
    const limit = await applyRateLimits({ kind: 'ip', clientIp: clientIpOf(req, getConfig().trustProxy) });
    setRateLimitHeaders(headers, limit);
    const status = limit.success ? 401 : 429;
    const message = limit.success ? `${refusal.code}: send the agent key as Authorization: Bearer ak_... (${refusal.message})` : 'rate_limited: retry after Retry-After seconds';
    return Response.json({ jsonrpc: '2.0', error: { code: -32001, message }, id: null }, { status, headers });
  }
  const server = createMcpServer({ bearer: key, forwardHeaders: req.headers });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req);
  } finally {
    void server.close();
  }
}
