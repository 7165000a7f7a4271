import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '@/db/drivers/postgres';
import { queryRows, runTransaction } from '@/db/hot/driver';
import type { DbHandle } from '@/db/client';
import { driver } from '../../helpers/app';
import { NEEDS_POSTGRES_SESSIONS } from '../../helpers/skips';

/**
 * The settings for a transaction pooler in front of PostgreSQL (docs/operations.md "High
 * availability"): `prepare: false` leaves no named statement on the server connection, and
 * what needs a session (LISTEN, the migrations' advisory lock) connects to DATABASE_DIRECT_URL,
 * not to the pooled URL. Told apart by application_name.
 */
const handles: DbHandle[] = [];
afterAll(async () => {
  for (const h of handles) await h.close();
});
const MIGRATIONS = path.join(process.cwd(), 'db', 'migrations');
/** Through a transaction pooler (scripts/ha/pgbouncer-claims.sh sets it), the migration lock must not go through it. */
const direct = () => process.env.DATABASE_DIRECT_URL || undefined;

async function pgUrl(ctx: { skip: (note?: string) => never }): Promise<string> {
  const url = process.env.DATABASE_URL;
  if ((await driver()) !== 'postgres' || !url) ctx.skip(NEEDS_POSTGRES_SESSIONS);
  return url!;
}
function named(url: string, name: string): string {
  const u = new URL(url);
  u.searchParams.set('application_name', name);
  return u.toString();
}
const tag = () => `h${process.pid}_${Math.random().toString(36).slice(2, 8)}`;

async function preparedCount(handle: DbHandle): Promise<number> {
  // The statements a claim sends, in a pipelined transaction as db/hot runs them, then the count on the same connection (pool of one).
  await runTransaction(handle.db, async (tx) => {
    await queryRows(tx, 'select $1::int + 1 as n', [1]);
    await queryRows(tx, 'select $1::text as t', ['a']);
    return null;
  });
  await queryRows(handle.db, 'select $1::int as n', [2]);
  const [row] = await queryRows(handle.db, 'select count(*)::int as n from pg_prepared_statements', []);
  return Number(row.n);
}

describe('pooler settings (PostgreSQL)', () => {
  it('prepare: false sends unnamed statements only; the default names them', async (ctx) => {
    const url = await pgUrl(ctx);
    const unnamed = await openPostgres(url, 1, MIGRATIONS, { prepare: false, directUrl: direct() });
    handles.push(unnamed);
    expect(await preparedCount(unnamed)).toBe(0);
    const prepared = await openPostgres(direct() ?? url, 1, MIGRATIONS);
    handles.push(prepared);
    expect(await preparedCount(prepared)).toBeGreaterThan(0);
  });

  it('LISTEN goes to DATABASE_DIRECT_URL, queries to the pooled URL', async (ctx) => {
    const url = await pgUrl(ctx);
    const pooled = tag();
    const listener = tag();
    const handle = await openPostgres(named(url, pooled), 2, MIGRATIONS, { prepare: false, directUrl: named(direct() ?? url, listener) });
    handles.push(handle);
    const seen: string[] = [];
    let live = false;
    const unlisten = await handle.listen(`${listener}_ch`, (p) => seen.push(p), (v) => (live = v));
    expect(live).toBe(true);
    await queryRows(handle.db, 'select pg_notify($1, $2)', [`${listener}_ch`, 'hello']);
    await expect.poll(() => seen).toEqual(['hello']);
    const rows = await queryRows(handle.db, 'select application_name as app, query from pg_stat_activity where application_name in ($1, $2)', [pooled, listener]);
    const listening = rows.filter((r) => /^listen /i.test(String(r.query)));
    expect(listening.map((r) => r.app)).toEqual([listener]);
    expect(rows.some((r) => r.app === pooled)).toBe(true);
    await unlisten();
  });

  it('ping answers on a primary', async (ctx) => {
    const url = await pgUrl(ctx);
    const handle = await openPostgres(url, 1, MIGRATIONS, { prepare: false, directUrl: direct() });
    handles.push(handle);
    await expect(handle.ping()).resolves.toBeUndefined();
  });
});
