import fs from 'node:fs';
import path from 'node:path';
import { expect, it } from 'vitest';
import { buildOpenApiDocument } from '@/server/http/openapi';
import { operations } from '@/server/http/operations';

/**
 * The published contract stays light enough for Swagger UI and the TypeScript compiler
 * (docs/architecture.md "Response shapes and the OpenAPI document"): error envelopes,
 * error responses, headers and the shared resource shapes are components referenced by
 * every operation, not copies.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');

// 300 kB for the 68 operations the budget was set for, plus 3 kB for each operation added since
// (the same per-operation restatement as the client types' budget below; docs/architecture.md).
it('/v1/openapi.json is at most 300 kB for 68 operations, plus 3 kB per operation since, as served, and references its shared pieces', () => {
  const doc = buildOpenApiDocument(operations, 'http://localhost:3000');
  const served = JSON.stringify(doc); // Response.json: compact
  // Plus 3 kB, as for one operation, for the recurring series (issue 40): fields and answers added to existing operations;
  // 1 kB for series holds (HoldSeries) and scope on confirm, release and reschedule (shared pieces are components);
  // 1 kB for the public types' repeat_weekly_max_weeks, the requests' repeat_weeks and the series webhook kinds;
  // and 1 kB for group and pool series (pool_member on bookings, owner_email on a series' occurrences).
  expect(Buffer.byteLength(served)).toBeLessThanOrEqual(300_000 + Math.max(0, operations.length - 68) * 3_000 + 6_000);
  const plain = JSON.parse(served) as { paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>> };
  for (const [p, item] of Object.entries(plain.paths))
    for (const [m, op] of Object.entries(item))
      for (const [status, r] of Object.entries(op.responses)) if (Number(status) >= 400) expect(r.$ref, `${m} ${p} ${status}`).toMatch(/^#\/components\/responses\//);
});

// 6,000 lines for the 68 operations the budget was set for (issue 24: shared envelopes took the
// types from 21,202 to 5,555 lines), plus 80 lines for each operation added since (groups, pools,
// reschedule, edit, extend), so a new operation pays its way and the envelopes stay shared.
it('clients/typescript/src/schema.d.ts is at most 6,000 lines for 68 operations, plus 80 per operation since', () => {
  const lines = fs.readFileSync(path.join(ROOT, 'clients/typescript/src/schema.d.ts'), 'utf8').split('\n').length;
  expect(lines).toBeLessThanOrEqual(6000 + Math.max(0, operations.length - 68) * 80);
});
