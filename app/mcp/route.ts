import { handleMcpHttp } from '@/server/mcp/http';

// MCP (Streamable HTTP, stateless) for agents: docs/agents.md.
export const dynamic = 'force-dynamic';
export const runtime = 'nodejs';

export const POST = (req: Request) => handleMcpHttp(req);
export const GET = (req: Request) => handleMcpHttp(req);
export const DELETE = (req: Request) => handleMcpHttp(req);
