import fs from 'node:fs/promises';
import path from 'node:path';

// Swagger UI's own files, served from the installed swagger-ui-dist package (no CDN), and the page's init script.
const DIST = path.join(process.cwd(), 'node_modules', 'swagger-ui-dist');
const FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
};

const INIT = `window.ui = SwaggerUIBundle({
  url: '/v1/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  validatorUrl: null,
  displayRequestDuration: true,
  defaultModelsExpandDepth: 0,
  docExpansion: 'list',
  filter: true,
  persistAuthorization: false,
});
`;

export async function GET(_req: Request, ctx: { params: Promise<{ file: string }> }): Promise<Response> {
  const { file } = await ctx.params;
  if (file === 'init.js') return new Response(INIT, { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-cache' } });
  const type = FILES[file];
  if (!type) return new Response('Not found', { status: 404 });
  const body = await fs.readFile(path.join(DIST, file));
  return new Response(new Uint8Array(body), { headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' } });
}
