import { buildOpenApiDocument } from '@/server/http/openapi';
import { operations } from '@/server/http/operations';
const doc: any = JSON.parse(JSON.stringify(buildOpenApiDocument(operations, 'http://localhost:3000')));
const seen = new Map<string, string[]>();
for (const [path, p] of Object.entries<any>(doc.paths)) for (const [m, op] of Object.entries<any>(p)) for (const [st, r] of Object.entries<any>(op.responses)) {
  if (+st >= 300) continue; const sch = JSON.stringify(r.content?.['application/json']?.schema ?? null);
  if (sch.length < 400) continue; const k = sch; seen.set(k, [...(seen.get(k) ?? []), `${m} ${path} ${sch.length}`]);
}
for (const [k, v] of seen) console.log(v.length, v[0], k.slice(0, 80));
