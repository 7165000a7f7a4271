import { MCP_TOOLS, toolInputSchema } from '@/server/mcp/tools';
console.log(JSON.stringify(toolInputSchema(MCP_TOOLS.find(t=>t.name==='confirm_hold')!.op)));
