import { afterEach, describe, expect, it } from 'vitest';
import { getConfig } from '@/server/config';

/** The pooler settings of docs/operations.md "High availability": DATABASE_PREPARE, PGBOUNCER, DATABASE_DIRECT_URL. */
const names = ['DATABASE_PREPARE', 'PGBOUNCER', 'DATABASE_DIRECT_URL'] as const;
const saved = Object.fromEntries(names.map((n) => [n, process.env[n]]));
afterEach(() => {
  for (const n of names) {
    if (saved[n] === undefined) delete process.env[n];
    else process.env[n] = saved[n];
  }
});
function set(values: Partial<Record<(typeof names)[number], string>>) {
  for (const n of names) delete process.env[n];
  Object.assign(process.env, values);
}

describe('database pooler settings', () => {
  it('prepares statements unless told otherwise', () => {
    set({});
    expect(getConfig().databasePrepare).toBe(true);
    expect(getConfig().databaseDirectUrl).toBeUndefined();
  });
  it('DATABASE_PREPARE=0 or false turns named statements off, 1 keeps them', () => {
    set({ DATABASE_PREPARE: '0' });
    expect(getConfig().databasePrepare).toBe(false);
    set({ DATABASE_PREPARE: 'false' });
    expect(getConfig().databasePrepare).toBe(false);
    set({ DATABASE_PREPARE: '1' });
    expect(getConfig().databasePrepare).toBe(true);
  });
  it('PGBOUNCER=1 means unnamed statements, and an explicit DATABASE_PREPARE wins', () => {
    set({ PGBOUNCER: '1' });
    expect(getConfig().databasePrepare).toBe(false);
    set({ PGBOUNCER: '1', DATABASE_PREPARE: '1' });
    expect(getConfig().databasePrepare).toBe(true);
  });
  it('DATABASE_DIRECT_URL is read as given', () => {
    set({ DATABASE_DIRECT_URL: 'postgres://postgres@127.0.0.1:5432/x' });
    expect(getConfig().databaseDirectUrl).toBe('postgres://postgres@127.0.0.1:5432/x');
  });
});
