import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { createMcpServer } from './server';

/**
 * MCP over Streamable HTTP, stateless: every POST carries the agent's `ak_`
 * bearer key and gets its own server and transport (JSON responses, no
 * session, no server-sent stream). Each tool call is authenticated, limited
 * and audited by the REST wrapper it runs through.
 */
export async function handleMcpHttp(req: Request): Promise<Response> {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get('authorization') ?? '');
  if (!m || !m[1].startsWith('ak_')) {
    return Response.json(
      { jsonrpc: '2.0', error: { code: -32001, message: 'unknown_api_key: send the agent key as Authorization: Bearer ak_...' }, id: null },
      { status: 401, headers: { 'www-authenticate': 'Bearer error="invalid_token", error_description="unknown_api_key"', 'cache-control': 'no-store' } },
    );
  }
  const server = createMcpServer({ bearer: m[1], forwardHeaders: req.headers });
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  await server.connect(transport);
  try {
    return await transport.handleRequest(req);
  } finally {
    void server.close();
  }
}
