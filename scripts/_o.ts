import { buildOpenApiDocument } from '@/server/http/openapi';
import { operations } from '@/server/http/operations';
const doc: any = JSON.parse(JSON.stringify(buildOpenApiDocument(operations, 'http://localhost:3000')));
const total = JSON.stringify(doc).length;
let resp = 0, errResp = 0, req = 0, succ=0, desc=0;
for (const p of Object.values<any>(doc.paths)) for (const op of Object.values<any>(p)) {
  for (const [st, r] of Object.entries<any>(op.responses)) { const n = JSON.stringify(r).length; resp += n; if (+st >= 400) errResp += n; else succ+=n; }
  req += JSON.stringify(op.requestBody ?? {}).length + JSON.stringify(op.parameters ?? []).length;
}
console.log({ total, components: JSON.stringify(doc.components).length, resp, errResp, succ, req });
const ex = doc.paths['/v1/holds'].post.responses['409'];
console.log(JSON.stringify(ex).slice(0, 3000));
