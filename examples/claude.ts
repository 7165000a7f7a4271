/**
 * The MCP tools handed to Claude's Messages API as tool definitions (docs/agents.md "Use it
 * from Claude"). Against `npm run dev`:
 *   SCHEDULER_API_KEY=ak_... npx tsx examples/claude.ts
 * The model is a scripted stand-in that answers the tool_use blocks a model would send.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const BASE = process.env.SCHEDULER_URL ?? 'http://localhost:3000';
const OWNER = process.env.OWNER_EMAIL ?? 'demo.owner@example.com';
type ToolUse = { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

async function main() {
  const mcp = new Client({ name: 'my-agent', version: '1.0.0' });
  const headers = { authorization: `Bearer ${process.env.SCHEDULER_API_KEY}` };
  await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', BASE), { requestInit: { headers } }));
  const { tools } = await mcp.listTools();
  const claudeTools = tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));
  const request = { system: mcp.getInstructions(), tools: claudeTools, messages: [{ role: 'user', content: 'Book 30 minutes with the owner in the next days, then cancel it.' }] as object[] };

  // Stand-in for POST /v1/messages with `request`: each turn is the tool_use blocks of one answer, reading earlier results.
  const start = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const window = { start: `${start}T00:00:00Z`, end: new Date(Date.parse(`${start}T00:00:00Z`) + 3 * 86_400_000).toISOString() };
  const results: Record<string, { slots?: { start: string; end: string }[]; booking_id?: string }> = {};
  const turns: (() => ToolUse[])[] = [
    () => [{ type: 'tool_use', id: 'toolu_1', name: 'search_availability', input: { owner_email: OWNER, meeting_class: 'internal', duration_minutes: 30, window, distinct: true } }],
    () => [{ type: 'tool_use', id: 'toolu_2', name: 'create_booking', input: { owner_email: OWNER, meeting_class: 'internal', start: results.toolu_1.slots![0].start, end: results.toolu_1.slots![0].end, title: 'Sync', idempotency_key: `claude-example-${Date.now()}` } }],
    () => [{ type: 'tool_use', id: 'toolu_3', name: 'cancel_booking', input: { id: results.toolu_2.booking_id } }],
  ];

  for (const turn of turns) {
    const uses = turn();
    request.messages.push({ role: 'assistant', content: uses });
    const toolResults = [];
    for (const use of uses) {
      const result = await mcp.callTool({ name: use.name, arguments: use.input });
      results[use.id] = result.structuredContent as (typeof results)[string];
      toolResults.push({ type: 'tool_result', tool_use_id: use.id, content: JSON.stringify(result.structuredContent), is_error: Boolean(result.isError) });
      console.log(`${use.name}: ${result.isError ? `refused ${JSON.stringify(result.structuredContent)}` : 'ok'}`);
      if (result.isError) process.exit(1);
    }
    request.messages.push({ role: 'user', content: toolResults });
  }
  console.log(`booked and cancelled ${results.toolu_2.booking_id} over ${claudeTools.length} tools`);
  await mcp.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
