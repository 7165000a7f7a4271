import { buildOpenApiDocument } from '@/server/http/openapi';
import { operations } from '@/server/http/operations';
const doc: any = JSON.parse(JSON.stringify(buildOpenApiDocument(operations, 'http://localhost:3000')));
let parts: Record<string, number> = {};
for (const p of Object.values<any>(doc.paths)) for (const op of Object.values<any>(p)) for (const [k, v] of Object.entries<any>(op)) {
  if (k === 'responses') { for (const [st, r] of Object.entries<any>(v)) { const key = +st < 400 ? 'resp2xx' : 'respErr'; parts[key] = (parts[key] ?? 0) + JSON.stringify(r).length; if (+st<400) { parts.succHeaders = (parts.succHeaders??0) + JSON.stringify(r.headers??{}).length; } } }
  else parts[k] = (parts[k] ?? 0) + JSON.stringify(v).length;
}
console.log(parts, Object.keys(doc.paths).length);
console.log(JSON.stringify(doc.paths['/v1/holds'].post).slice(0, 2500));
