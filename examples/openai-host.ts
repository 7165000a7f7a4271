/**
 * The MCP tools handed to an OpenAI-compatible chat API as strict function tools
 * (docs/agents.md "Use it from an OpenAI-compatible host"). Against `npm run dev`:
 *   SCHEDULER_API_KEY=ak_... npx tsx examples/openai-host.ts
 * The model is a scripted stand-in that asks for the tool calls a model would make.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const BASE = process.env.SCHEDULER_URL ?? 'http://localhost:3000';
const OWNER = process.env.OWNER_EMAIL ?? 'demo.owner@example.com';
type ToolCall = { id: string; type: 'function'; function: { name: string; arguments: string } };

async function main() {
  const mcp = new Client({ name: 'my-agent', version: '1.0.0' });
  const headers = { authorization: `Bearer ${process.env.SCHEDULER_API_KEY}` };
  await mcp.connect(new StreamableHTTPClientTransport(new URL('/mcp', BASE), { requestInit: { headers } }));
  const { tools } = await mcp.listTools();
  const openAiTools = tools.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema, strict: true } }));
  const messages: object[] = [{ role: 'system', content: mcp.getInstructions() }, { role: 'user', content: 'Find 30 minutes with the owner in the next days.' }];

  // Stand-in for POST /v1/chat/completions { model, messages, tools: openAiTools }: strict mode fills every field, null where unused.
  const strict = (name: string, given: Record<string, unknown>) => {
    const props = Object.keys(tools.find((t) => t.name === name)!.inputSchema.properties ?? {});
    return JSON.stringify(Object.fromEntries(props.map((k) => [k, given[k] ?? null])));
  };
  const start = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  const window = { start: `${start}T00:00:00Z`, end: new Date(Date.parse(`${start}T00:00:00Z`) + 3 * 86_400_000).toISOString() };
  const turns: ToolCall[][] = [
    [{ id: 'call_1', type: 'function', function: { name: 'search_availability', arguments: strict('search_availability', { owner_email: OWNER, meeting_class: 'meeting', duration_minutes: 30, window }) } }],
    [{ id: 'call_2', type: 'function', function: { name: 'search_availability', arguments: strict('search_availability', { owner_email: OWNER, meeting_class: 'internal', duration_minutes: 30, window, max_results: 3 }) } }],
  ];
  console.log(`${openAiTools.length} tools offered`);

  for (const toolCalls of turns) {
    messages.push({ role: 'assistant', content: null, tool_calls: toolCalls });
    for (const call of toolCalls) {
      const result = await mcp.callTool({ name: call.function.name, arguments: JSON.parse(call.function.arguments) });
      messages.push({ role: 'tool', tool_call_id: call.id, content: JSON.stringify(result.structuredContent) });
      const body = result.structuredContent as { error?: { code: string }; valid_meeting_classes?: string[]; slots?: { start: string }[] };
      if (result.isError) console.log(`${call.function.name}: refused ${body.error?.code} (valid: ${body.valid_meeting_classes?.join(', ')})`);
      else console.log(`${call.function.name}: ok, first slot ${body.slots?.[0]?.start ?? 'none'}`);
    }
  }
  await mcp.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
