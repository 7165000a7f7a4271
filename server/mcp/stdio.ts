import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { getConfig } from '@/server/config';
import { createMcpServer } from './server';

/** MCP over stdio for the agent whose key is SCHEDULER_API_KEY (docs/agents.md). Logs go to stderr: stdout is the protocol. */
export async function serveMcpStdio(): Promise<void> {
  const key = getConfig().mcpApiKey;
  if (!key || !key.startsWith('ak_')) throw new Error('Set SCHEDULER_API_KEY to the agent key (ak_...) the MCP server acts with');
  const server = createMcpServer({ bearer: key, forwardHeaders: new Headers({ 'x-forwarded-for': '127.0.0.1' }) });
  await server.connect(new StdioServerTransport());
}
