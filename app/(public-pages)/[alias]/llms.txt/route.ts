import { llmsTxtResponse } from '@/server/http/pages/llmsText';
import { traceRequest } from '@/server/observability/tracing';

// A link's page for agents, in plain text (docs/public-scheduling.md "For agents").
export const dynamic = 'force-dynamic';
export const GET = async (req: Request, ctx: { params: Promise<{ alias: string }> }) => {
  const { alias } = await ctx.params;
  return traceRequest(req, 'GET /{alias}/llms.txt', '/{alias}/llms.txt', () => llmsTxtResponse(req, alias));
};
