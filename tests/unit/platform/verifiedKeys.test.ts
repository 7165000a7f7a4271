import { describe, expect, it } from 'vitest';
import type { ApiKeyRow } from '@/db/hot/access';
import { VerifiedKeys } from '@/server/domain/verifiedKeys';

/** The in-memory verified keys (server/domain/verifiedKeys.ts, docs/architecture.md "API keys"), without a database. */
const row = (keyId: string, agentId: string, extra: Partial<ApiKeyRow> = {}): ApiKeyRow => ({
  keyId,
  agentId,
  customerId: 'c',
  revokedAt: null,
  lastUsedAt: null,
  ownerScope: 'org:*',
  displayTimeZone: null,
  permissions: [],
  disabled: false,
  ...extra,
});

function live(): VerifiedKeys {
  const c = new VerifiedKeys();
  c.feed(true);
  return c;
}

describe('VerifiedKeys', () => {
  it('keeps nothing and answers nothing until the change feed is heard, and forgets all when it is lost', () => {
    const c = new VerifiedKeys();
    c.put('h1', row('k1', 'a1'), c.mark(), 0);
    expect(c.get('h1', 0)).toBeUndefined();
    c.feed(true);
    c.put('h1', row('k1', 'a1'), c.mark(), 0);
    expect(c.get('h1', 0)?.keyId).toBe('k1');
    c.feed(false);
    expect(c.get('h1', 0)).toBeUndefined();
    c.feed(true);
    expect(c.get('h1', 0)).toBeUndefined(); // what was kept before the loss is gone
  });

  it('does not keep a read begun before a change was heard', () => {
    const c = live();
    const mark = c.mark();
    c.changed('k:other'); // any change, even of another key: the read may predate it
    c.put('h1', row('k1', 'a1'), mark, 0);
    expect(c.get('h1', 0)).toBeUndefined();
    c.put('h1', row('k1', 'a1'), c.mark(), 0);
    expect(c.get('h1', 0)).toBeDefined();
  });

  it('drops a key by its id, every key of an agent by the agent id, and everything on "*"', () => {
    const c = live();
    c.put('h1', row('k1', 'a1'), c.mark(), 0);
    c.put('h2', row('k2', 'a1'), c.mark(), 0);
    c.put('h3', row('k3', 'a2'), c.mark(), 0);
    c.changed('k:k1');
    expect([c.get('h1', 0), c.get('h2', 0)?.keyId, c.get('h3', 0)?.keyId]).toEqual([undefined, 'k2', 'k3']);
    c.changed('a:a1');
    expect([c.get('h2', 0), c.get('h3', 0)?.keyId]).toEqual([undefined, 'k3']);
    c.changed('*');
    expect(c.size).toBe(0);
  });

  it('never keeps a revoked key or a disabled agent, and lets an entry live 30 s at most', () => {
    const c = live();
    c.put('h1', row('k1', 'a1', { revokedAt: new Date(0) }), c.mark(), 0);
    c.put('h2', row('k2', 'a2', { disabled: true }), c.mark(), 0);
    expect(c.size).toBe(0);
    c.put('h3', row('k3', 'a3'), c.mark(), 1_000);
    expect(c.get('h3', 31_000)).toBeDefined();
    expect(c.get('h3', 31_001)).toBeUndefined();
  });
});
