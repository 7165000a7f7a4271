import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { operations } from '@/server/http/operations';
import { isMutating } from '@/server/http/operation';

/**
 * Where each keyed write stores its Idempotency-Key's answer (docs/api.md "Idempotency",
 * docs/operations.md "High availability"): the wrapper's transaction by default, a claim's own
 * (`transaction: 'own'`), or none (`transaction: false`, outbound calls), so that the exceptions
 * stay deliberate and documented.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const keyed = operations.filter((op) => op.auth === 'api_key' && op.idempotency !== false && isMutating(op.method));

describe('keyed writes and their transaction', () => {
  it('a claim on the calendar gate of its owner (scope gate: claim) runs in its own transaction', () => {
    const claimGated = operations.filter((op) => op.scope?.gate === 'claim').map((op) => op.operationId);
    expect(claimGated.length).toBeGreaterThan(0);
    for (const id of claimGated) expect(operations.find((op) => op.operationId === id)?.transaction, id).toBe('own');
  });

  it('only mutating API-key operations declare one', () => {
    const declared = operations.filter((op) => op.transaction !== undefined);
    for (const op of declared) expect(keyed, op.operationId).toContain(op);
  });

  it('the operations without a transaction are the ones docs/operations.md lists', () => {
    const none = keyed.filter((op) => op.transaction === false);
    expect(none.map((op) => op.operationId).sort()).toEqual(['connectCaldavCalendar', 'verifyDomain']);
    const doc = fs.readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8').replace(/\s+/g, ' ');
    for (const op of none) expect(doc, op.operationId).toContain(`\`${op.method} ${op.path}\``);
  });
});
