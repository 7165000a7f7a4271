import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { executeOperation, type CallerContext } from './execute';
import { MCP_INSTRUCTIONS, MCP_TOOLS, toolAnnotations, toolInputSchema } from './tools';

const TOOL_LIST = MCP_TOOLS.map((t) => ({
  name: t.name,
  description: t.description,
  inputSchema: toolInputSchema(t.op) as { type: 'object'; [k: string]: unknown },
  annotations: toolAnnotations(t),
}));

/**
 * An MCP server for one caller (one agent key). Tools are REST operations
 * (server/mcp/tools.ts); the rules common to every tool are its `instructions`
 * (sent at initialize); a refusal is a tool error (isError) whose structured
 * content is the REST error body plus its HTTP status.
 */
export function createMcpServer(caller: CallerContext, version = '0.1.0'): Server {
  const server = new Server(
    { name: 'agent-scheduler', version },
    {
      capabilities: { tools: {} },
      instructions: MCP_INSTRUCTIONS,
    },
  );
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: TOOL_LIST }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = MCP_TOOLS.find((t) => t.name === request.params.name);
    if (!tool) {
      const body = { status: 404, error: { code: 'not_found', message: `No tool named ${request.params.name}` } };
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
    }
    const outcome = await executeOperation(tool.op, (request.params.arguments ?? {}) as Record<string, unknown>, caller);
    const structured = outcome.ok ? outcome.body : { status: outcome.status, ...outcome.body };
    return { isError: !outcome.ok, content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
  });
  return server;
}
