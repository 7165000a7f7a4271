import { requestIdOf, withRequestId } from '@/server/http/requestId';
import { runWithLogContext } from '@/server/log';
import { handleMcpHttp } from '@/server/mcp/http';
import { traceRequest } from '@/server/observability/tracing';

// MCP (Streamable HTTP, stateless) for agents: docs/agents.md.
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

// Its span is renamed by the message it carries once read (server/mcp/http.ts).
// The answer's X-Request-Id is the one its log lines and its tool calls' REST requests carry.
export const POST = (req: Request) =>
  traceRequest(req, 'POST /mcp', '/mcp', () => {
    const requestId = requestIdOf(req);
    return runWithLogContext({ request_id: requestId, route: '/mcp', method: 'POST' }, async () => withRequestId(await handleMcpHttp(req, requestId), requestId));
  });

// Stateless: no server-initiated stream (GET) and no session to end (DELETE).
const notAllowed = () =>
  Response.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this MCP endpoint is stateless, POST only' }, id: null }, { status: 405, headers: { allow: 'POST' } });
export const GET = notAllowed;
export const DELETE = notAllowed;
