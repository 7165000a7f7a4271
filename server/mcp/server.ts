import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js';
import { executeOperation, type CallerContext } from './execute';
import { getPrompt, PROMPTS } from './prompts';
import { listResources, readResource, RESOURCE_TEMPLATES } from './resources';
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
 * content is the REST error body plus its HTTP status. Resources (the agent's
 * bookings, each owner's rules: server/mcp/resources.ts) read through the same
 * operations; the prompt find_a_time (server/mcp/prompts.ts) walks a host
 * through the tools. A host that lists only tools sees exactly the tools.
 */
export function createMcpServer(caller: CallerContext, version = '0.1.0'): Server {
  const server = new Server(
    { name: 'agent-scheduler', version },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
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
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await listResources(caller) }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: RESOURCE_TEMPLATES }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => readResource(request.params.uri, caller));
  server.setRequestHandler(ListPromptsRequestSchema, async () => ({ prompts: PROMPTS }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => getPrompt(request.params.name, request.params.arguments));
  return server;
}
