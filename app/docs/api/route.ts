// API reference (docs/agents.md "API reference"): Swagger UI over /v1/openapi.json, every asset
// served by this app (app/docs/api/assets), so the page works with no internet.
import { PAGE_HEADERS, STATIC_PAGE_CSP } from '@/server/http/securityHeaders';

export const dynamic = 'force-static';

const HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · Agent Scheduler</title>
<link rel="stylesheet" href="/docs/api/assets/swagger-ui.css">
<style>body{margin:0} .topbar{display:none} .api-intro{font:14px/1.5 system-ui,sans-serif;max-width:1460px;margin:16px auto 0;padding:0 20px}</style>
</head>
<body>
<p class="api-intro">REST API for agents. Click <strong>Authorize</strong> and paste your agent key (<code>ak_...</code>) to use <strong>Try it out</strong>; the same operations are MCP tools at <code>/mcp</code> (see docs/agents.md). The raw document: <a href="/v1/openapi.json">/v1/openapi.json</a>.</p>
<div id="swagger-ui"></div>
<script src="/docs/api/assets/swagger-ui-bundle.js"></script>
<script src="/docs/api/assets/init.js"></script>
</body>
</html>
`;

export function GET(): Response {
  // Only this origin's script files run (no inline script here); never framed (docs/reliability.md "Headers").
  return new Response(HTML, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': STATIC_PAGE_CSP, ...PAGE_HEADERS } });
}
