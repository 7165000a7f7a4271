import { buildOpenApiDocument } from '@/server/http/openapi';
import { operations } from '@/server/http/operations';
const doc: any = JSON.parse(JSON.stringify(buildOpenApiDocument(operations, 'http://localhost:3000')));
const sch = Object.entries<any>(doc.components.schemas).map(([k, v]) => [k, JSON.stringify(v).length] as const).sort((a, b) => b[1] - a[1]);
console.log(sch.slice(0, 15), sch.length, sch.reduce((a, b) => a + b[1], 0));
console.log('responses comp', JSON.stringify(doc.components.responses).length, Object.keys(doc.components.responses).length);
console.log(JSON.stringify(doc.components.schemas['Error_HOLD_NOT_FOUND']));
